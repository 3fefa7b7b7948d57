// LocalWeb shared widgets: the controls agents meet on the real web, written once for every
// app. Markup opts in with attributes; nothing here talks to anything but its own server.
//   <button data-dialog-open="#id"> / <dialog id> ... <button data-dialog-close>
//   <div class="menu"><button aria-haspopup="menu">..</button><ul role="menu" hidden>..</ul></div>
//   <div role="tablist"><button role="tab" aria-controls="panel-id">..</button></div>
//   <label class="switch"><button role="switch" aria-checked="false" data-api="/app/api/x"></button> Text</label>
//   <div class="autocomplete"><input data-suggest="/app/api/suggest?q="></div>
//   <input class="datepicker" data-min="2026-01-01" data-max="2026-12-31">
(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

  window.api = async (method, url, body) => {
    const init = {method, headers: {}};
    if (body !== undefined) { init.headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(body); }
    const response = await fetch(url, init);
    const data = (response.headers.get('Content-Type') || '').includes('json') ? await response.json() : await response.text();
    if (!response.ok) throw Object.assign(new Error(data && data.error || response.statusText), {data, status: response.status});
    return data;
  };

  window.toast = (message) => {
    $$('.toast').forEach(t => t.remove());
    const t = document.createElement('div');
    t.className = 'toast'; t.setAttribute('role', 'status'); t.textContent = message;
    document.body.appendChild(t);
  };

  const closeMenus = (except) => $$('.menu [role=menu]').forEach(m => {
    if (m !== except) { m.hidden = true; const b = m.parentElement.querySelector('[aria-haspopup]'); if (b) b.setAttribute('aria-expanded', 'false'); }
  });

  document.addEventListener('click', (event) => {
    const t = event.target;
    const opener = t.closest('[data-dialog-open]');
    if (opener) { const d = $(opener.dataset.dialogOpen); if (d && !d.open) d.showModal(); return; }
    const closer = t.closest('[data-dialog-close]');
    if (closer) { const d = closer.closest('dialog'); if (d) d.close(closer.value || ''); return; }
    const menuButton = t.closest('.menu [aria-haspopup]');
    if (menuButton) {
      const menu = menuButton.parentElement.querySelector('[role=menu]');
      closeMenus(menu);
      menu.hidden = !menu.hidden;
      menuButton.setAttribute('aria-expanded', String(!menu.hidden));
      return;
    }
    if (!t.closest('.menu [role=menu]')) closeMenus(null);
    const tab = t.closest('[role=tab]');
    if (tab) {
      const list = tab.closest('[role=tablist]');
      $$('[role=tab]', list).forEach(other => {
        const selected = other === tab;
        other.setAttribute('aria-selected', String(selected));
        const panel = document.getElementById(other.getAttribute('aria-controls'));
        if (panel) panel.hidden = !selected;
      });
    }
    const sw = t.closest('[role=switch]');
    if (sw && !sw.disabled) {
      const next = sw.getAttribute('aria-checked') !== 'true';
      sw.setAttribute('aria-checked', String(next));
      if (sw.dataset.api) window.api('POST', sw.dataset.api, {value: next}).catch(e => window.toast(e.message));
      sw.dispatchEvent(new CustomEvent('switch-change', {bubbles: true, detail: {value: next}}));
    }
    if (!t.closest('.datepicker-popup') && !t.classList.contains('datepicker')) $$('.datepicker-popup').forEach(p => p.remove());
  });

  // Autocomplete: suggestions from the app's API as the user types.
  document.addEventListener('input', async (event) => {
    const input = event.target;
    if (!input.matches || !input.matches('[data-suggest]')) return;
    const box = input.closest('.autocomplete');
    let list = $('[role=listbox]', box);
    if (!list) { list = document.createElement('ul'); list.setAttribute('role', 'listbox'); box.appendChild(list); }
    const query = input.value.trim();
    list.hidden = true;  // shown lists and their options always answer what the field holds now
    list.innerHTML = '';
    if (!query) return;
    const items = await window.api('GET', input.dataset.suggest + encodeURIComponent(query));
    if (input.value.trim() !== query) return;  // a newer keystroke owns the list
    list.innerHTML = '';
    items.forEach(item => {
      const li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.textContent = item.label;
      li.addEventListener('click', () => {
        input.value = item.label; list.hidden = true;
        if (item.href) window.location.href = item.href;
        input.dispatchEvent(new CustomEvent('suggest-picked', {bubbles: true, detail: item}));
      });
      list.appendChild(li);
    });
    list.hidden = items.length === 0;
  });

  // Date picker: a month grid with previous/next buttons; disabled outside [min, max].
  const pad = n => String(n).padStart(2, '0');
  const iso = d => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  const openPicker = (input, year, month) => {
    $$('.datepicker-popup').forEach(p => p.remove());
    const popup = document.createElement('div');
    popup.className = 'datepicker-popup';
    popup.setAttribute('role', 'dialog');
    popup.setAttribute('aria-label', 'Choose date');
    const r = input.getBoundingClientRect();
    popup.style.left = `${r.left + window.scrollX}px`;
    popup.style.top = `${r.bottom + window.scrollY + 4}px`;
    const first = new Date(year, month, 1);
    const days = new Date(year, month + 1, 0).getDate();
    let html = `<div class="dp-head"><button type="button" class="secondary dp-prev" aria-label="Previous month">&lsaquo;</button>` +
      `<strong class="dp-title">${MONTHS[month]} ${year}</strong>` +
      `<button type="button" class="secondary dp-next" aria-label="Next month">&rsaquo;</button></div><table><tr>` +
      ['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'].map(d => `<th>${d}</th>`).join('') + '</tr><tr>';
    const lead = (first.getDay() + 6) % 7;
    html += '<td></td>'.repeat(lead);
    for (let day = 1; day <= days; day++) {
      const value = `${year}-${pad(month + 1)}-${pad(day)}`;
      const off = (input.dataset.min && value < input.dataset.min) || (input.dataset.max && value > input.dataset.max);
      html += `<td><button type="button" data-date="${value}" aria-pressed="${value === input.value}" ${off ? 'disabled' : ''}>${day}</button></td>`;
      if ((lead + day) % 7 === 0 && day !== days) html += '</tr><tr>';
    }
    popup.innerHTML = html + '</tr></table>';
    popup.addEventListener('click', (event) => {
      const t = event.target;
      if (t.closest('.dp-prev')) openPicker(input, month === 0 ? year - 1 : year, (month + 11) % 12);
      else if (t.closest('.dp-next')) openPicker(input, month === 11 ? year + 1 : year, (month + 1) % 12);
      else if (t.dataset.date && !t.disabled) {
        input.value = t.dataset.date; popup.remove();
        input.dispatchEvent(new Event('change', {bubbles: true}));
      }
    });
    document.body.appendChild(popup);
  };
  document.addEventListener('click', (event) => {
    const input = event.target.closest('input.datepicker');
    if (!input) return;
    const base = input.value ? new Date(input.value + 'T00:00') : new Date((input.dataset.start || input.dataset.min || iso(new Date())) + 'T00:00');
    openPicker(input, base.getFullYear(), base.getMonth());
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') { closeMenus(null); $$('.datepicker-popup').forEach(p => p.remove()); }
  });
})();
