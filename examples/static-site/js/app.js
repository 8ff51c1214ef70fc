// Asks the API route that lives beside the static files.
fetch('/api/time')
  .then((r) => r.json())
  .then(({ now }) => {
    document.getElementById('clock').textContent = `Server time: ${now}`;
  });
