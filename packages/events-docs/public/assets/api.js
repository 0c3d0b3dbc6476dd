// Renders the inlined OpenAPI document with Redoc (assets/redoc.standalone.js), without any network access.
(function () {
  var spec = JSON.parse(document.getElementById('openapi-document').textContent);
  var options = {
    expandResponses: '200',
    requiredPropsFirst: true,
    hideDownloadButton: false,
    theme: {
      typography: {
        fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
        headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif' },
        code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' }
      }
    }
  };
  Redoc.init(spec, options, document.getElementById('redoc'), function (err) {
    document.body.setAttribute('data-rendered', err ? 'error' : 'ok');
  });
})();
