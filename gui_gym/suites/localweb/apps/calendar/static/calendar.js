// Calendar behaviour. Changes are native form posts (the server redirects, or answers with
// the form and its errors); this script handles what lives in the page: the time lists of the
// event form (a combobox whose list opens at the current value; a new start keeps the event's
// length), attendee chips from the shared autocomplete (copied into the form on submit), the
// booking grid's chosen slot and date, and the booking summary.
(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const toMinutes = (t) => { const m = /^(\d{2}):(\d{2})$/.exec(t || ''); return m ? Number(m[1]) * 60 + Number(m[2]) : null; };
  const toTime = (n) => `${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`;

  // ---- time lists ------------------------------------------------------------------------
  const closeLists = (except) => $$('.time-options').forEach(list => {
    if (list !== except) { list.hidden = true; list.previousElementSibling.setAttribute('aria-expanded', 'false'); }
  });
  const setTime = (input, value) => {
    input.value = value;
    $$('[role=option]', $(`#${input.id}-options`)).forEach(o => o.setAttribute('aria-selected', String(o.dataset.value === value)));
  };
  const keepLength = (previousStart) => {
    const start = $('#start'), end = $('#end');
    const from = toMinutes(previousStart), to = toMinutes(end.value), now = toMinutes(start.value);
    if (from === null || to === null || now === null || to <= from) return;
    setTime(end, toTime(Math.min(now + to - from, 21 * 60)));
  };

  document.addEventListener('click', (event) => {
    const t = event.target;
    const input = t.closest('.time-input');
    const option = t.closest('.time-options [role=option]');
    if (input) {
      const list = $(`#${input.id}-options`);
      closeLists(list);
      list.hidden = false;
      input.setAttribute('aria-expanded', 'true');
      const selected = $$('[role=option]', list).find(o => o.dataset.value === input.value);
      list.scrollTop = selected ? Math.max(0, selected.offsetTop - 2 * selected.offsetHeight) : 0;
    } else if (option) {
      const field = option.closest('.time-options').previousElementSibling;
      const before = field.value;
      setTime(field, option.dataset.value);
      if (field.id === 'start' && $('#end')) keepLength(before);
      closeLists(null);
    } else {
      closeLists(null);
    }
    if (!t.closest('.autocomplete')) $$('.autocomplete [role=listbox]').forEach(l => { l.hidden = true; });
    if (t.closest('.chip-remove')) t.closest('.chip').remove();
    const slot = t.closest('.slot.free');
    if (slot) {
      $$('.slot').forEach(s => s.setAttribute('aria-pressed', String(s === slot)));
      $('#slot-start').value = slot.dataset.start;
      $('#continue').disabled = false;
    }
    if (t.closest('#review')) {
      const names = $$('#book-attendees-chips .chip').map(c => c.firstChild.textContent.trim());
      $('#summary').innerHTML = '';
      [['Title', $('#book-title').value], ['People', $('#people').value], ['Attendees', names.join(', ') || 'none']].forEach(([k, v]) => {
        const dt = document.createElement('dt'); dt.textContent = k;
        const dd = document.createElement('dd'); dd.textContent = v;
        $('#summary').append(dt, dd);
      });
    }
  });
  document.addEventListener('focusin', (event) => {
    if (event.target.matches && event.target.matches('.time-input')) event.target.dataset.before = event.target.value;
  });
  document.addEventListener('change', (event) => {
    const t = event.target;
    if (t.id === 'start' && t.dataset.before && $('#end')) keepLength(t.dataset.before);
    if (t.id === 'repeat') $('#count-field').hidden = t.value === 'none';
    if (t.id === 'book-date') {
      const form = $('#slot-form');
      window.location.href = `${form.dataset.base}?date=${encodeURIComponent(t.value)}&duration=${form.elements.duration.value}`;
    }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closeLists(null);
    if (event.key === 'Enter' && event.target.closest && event.target.closest('.attendees-field')) event.preventDefault();
  });

  // ---- attendees -------------------------------------------------------------------------
  document.addEventListener('suggest-picked', (event) => {
    const field = event.target.closest('.attendees-field');
    if (!field) return;
    const chips = $('.chips', field);
    event.target.value = '';
    if ($$('.chip', chips).some(c => c.dataset.value === event.detail.email)) return;
    const chip = document.createElement('span');
    chip.className = 'chip';
    chip.dataset.value = event.detail.email;
    chip.textContent = event.detail.label.replace(/\s*<.*$/, '');
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'chip-remove';
    remove.setAttribute('aria-label', `Remove ${chip.textContent}`);
    remove.textContent = '\u00d7';
    chip.appendChild(remove);
    chips.appendChild(chip);
  });
  document.addEventListener('submit', (event) => {
    const field = $('.attendees-field', event.target);
    if (field) $('input[name=attendees]', field).value = $$('.chip', field).map(c => c.dataset.value).join(',');
  });
})();
