// LocalShop page behaviour: filters that apply themselves, and the shipping form's
// "new address" fields, enabled only when that option is chosen.
(() => {
  document.addEventListener('change', (event) => {
    const t = event.target;
    const form = t.closest('form[data-autosubmit]');
    if (form && (t.type === 'checkbox' || t.type === 'radio')) form.submit();
    if (t.name === 'address' && t.type === 'radio') {
      const fields = document.getElementById('new-address');
      if (fields) fields.disabled = t.value !== 'new';
    }
  });
})();
