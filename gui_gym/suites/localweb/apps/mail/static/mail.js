// Mail client behaviour. Changes are native form posts (the server redirects); this script
// only handles what lives in the page: recipient and attachment chips (from the shared
// autocomplete and the My files dialog), "Select all", and the compose payload it puts in
// the form just before the browser submits it.
(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

  const addChip = (container, value, text) => {
    const clean = value.trim();
    if (!clean || $$('.chip', container).some(c => c.dataset.value === clean)) return;
    const chip = document.createElement('span');
    chip.className = 'chip';
    chip.dataset.value = clean;
    chip.title = clean;
    chip.textContent = text || clean;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'chip-remove';
    remove.setAttribute('aria-label', `Remove ${clean}`);
    remove.textContent = '\u00d7';
    chip.appendChild(remove);
    container.appendChild(chip);
  };
  const chipValues = (id) => $$(`#${id} .chip`).map(c => c.dataset.value);

  document.addEventListener('click', (event) => {
    const t = event.target;
    if (!t.closest('.autocomplete')) $$('.autocomplete [role=listbox]').forEach(l => { l.hidden = true; });
    const remove = t.closest('.chip-remove');
    if (remove) { remove.closest('.chip').remove(); return; }
    if (t.closest('#files-done')) {
      const dialog = t.closest('dialog');
      $$('.files-list input:checked', dialog).forEach(box => { addChip($('#attachments-chips'), box.value); box.checked = false; });
      dialog.close();
    }
  });

  document.addEventListener('change', (event) => {
    if (event.target.id === 'select-all') $$('.msg-check').forEach(c => { c.checked = event.target.checked; });
  });

  document.addEventListener('input', (event) => {
    if (event.target.id !== 'file-filter') return;
    const needle = event.target.value.trim().toLowerCase();
    $$('.file-option').forEach(o => { o.hidden = !o.dataset.file.toLowerCase().includes(needle); });
  });

  document.addEventListener('suggest-picked', (event) => {
    const field = event.target.closest('.recipients');
    if (!field) return;
    addChip($('.chips', field), event.detail.email, event.detail.label.replace(/\s*<.*$/, ''));
    event.target.value = '';
  });

  document.addEventListener('keydown', (event) => {
    const input = event.target;
    if (!input.closest || !input.closest('#compose-form') || input.tagName !== 'INPUT') return;
    const field = input.closest('.recipients');
    if (field && [',', ';'].includes(event.key) && input.value.trim()) {
      event.preventDefault();
      addChip($('.chips', field), input.value);
      input.value = '';
    } else if (event.key === 'Enter') {
      event.preventDefault();  // Enter never sends a mail by accident
      if (field && input.value.trim()) { addChip($('.chips', field), input.value); input.value = ''; }
    }
  });

  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (form.id !== 'compose-form') return;
    const recipients = (field) => [...chipValues(`${field}-chips`), ...$(`#${field}-input`).value.split(/[,;]/).filter(v => v.trim())];
    form.elements.payload.value = JSON.stringify({
      to: recipients('to'), cc: recipients('cc'), subject: $('#subject').value, body: $('#body').value,
      attachments: chipValues('attachments-chips'), reply_to: form.dataset.replyTo || null,
      forward_of: form.dataset.forwardOf || null, draft_id: form.dataset.draftId || null,
    });
  });
})();
