// The live trace: one EventSource on /trace/events for the page's topic; each event is one step
// line, appended as text (never as HTML). The send form posts in the background so the stream
// stays open while the message walks through the broker.
(function () {
  var topic = document.body.dataset.topic;
  var steps = document.getElementById('steps');
  var state = document.getElementById('state');
  if (!topic || !steps) { return; }
  var es = new EventSource('/trace/events?topic=' + encodeURIComponent(topic));
  es.addEventListener('ready', function () { state.textContent = 'watching'; document.body.dataset.state = 'watching'; });
  es.addEventListener('dropped', function (e) { state.textContent = 'watching (' + e.data + ' lines dropped: too fast for the page)'; });
  es.onmessage = function (e) {
    var li = document.createElement('li');
    li.textContent = e.data;
    steps.appendChild(li);
  };
  es.onerror = function () { state.textContent = 'disconnected (retrying)'; document.body.dataset.state = 'disconnected'; };
  var form = document.getElementById('send');
  if (form) {
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var sent = document.getElementById('sent');
      fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)), headers: { 'Accept': 'text/plain' } })
        .then(function (r) { return r.text().then(function (t) { sent.textContent = r.status + ' ' + t; }); })
        .catch(function (err) { sent.textContent = String(err); });
    });
  }
})();
