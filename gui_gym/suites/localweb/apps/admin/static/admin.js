// Admin console behaviour on top of the shared widgets: re-open a dialog whose form came back
// with validation errors, and keep each notification switch's hidden form field in step.
(() => {
  document.addEventListener('DOMContentLoaded', () => {
    document.querySelectorAll('dialog[data-show-on-load]').forEach(d => d.showModal());
  });
  document.addEventListener('switch-change', (event) => {
    const input = event.target.closest('.switch').querySelector('input[type=hidden]');
    if (input) input.value = event.detail.value ? 'on' : 'off';
  });
})();
