// The chat's browser side: plain ES module, no bundler. It signs in with a form post, lists
// rooms and messages through the JSON API, receives live messages over a WebSocket per room,
// sends messages with POST (so the server validates them), and uploads an avatar.

const $ = (id) => document.getElementById(id);

const state = {
  me: null,
  room: 'lobby',
  socket: null,
  oldest: null,
  /** Set when the server closed our socket on purpose (signed out elsewhere): no reconnect. */
  ended: false,
};

async function api(path, init) {
  const res = await fetch(path, { credentials: 'same-origin', ...init });
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('json') ? await res.json() : await res.text();
  return { ok: res.ok, status: res.status, body };
}

/** The first thing a 4xx answer says: a validation issue's message, or the error's message. */
function reason(body) {
  if (body && typeof body === 'object') {
    if (Array.isArray(body.issues) && body.issues.length > 0) return body.issues[0].message;
    if (body.message) return body.message;
  }
  return typeof body === 'string' && body ? body : 'Something went wrong';
}

function show(el, text) {
  el.textContent = text;
  el.hidden = !text;
}

function avatarUrl(user) {
  if (user.avatar) return user.avatar;
  // A generated placeholder: the user's initial on a colour picked from the name.
  let hash = 0;
  for (const ch of user.name) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  const hue = hash % 360;
  const initial = [...user.name][0]?.toUpperCase() ?? '?';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="hsl(${hue} 55% 55%)"/><text x="50%" y="54%" font-family="sans-serif" font-size="18" fill="#fff" text-anchor="middle" dominant-baseline="middle">${escapeXml(initial)}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

function escapeXml(text) {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function renderMessage(message, { prepend = false } = {}) {
  const li = document.createElement('li');
  li.className = 'message';
  li.dataset.id = message.id;
  const img = document.createElement('img');
  img.className = 'avatar';
  img.alt = '';
  img.src = avatarUrl({ name: message.user, avatar: message.avatar });
  const body = document.createElement('div');
  body.className = 'body';
  const meta = document.createElement('div');
  meta.className = 'meta';
  const who = document.createElement('strong');
  who.textContent = message.user;
  const when = document.createElement('time');
  when.dateTime = new Date(message.at).toISOString();
  when.textContent = new Date(message.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  meta.append(who, when);
  const text = document.createElement('p');
  text.textContent = message.text;
  body.append(meta, text);
  li.append(img, body);
  const list = $('messages');
  if (prepend) list.prepend(li);
  else {
    list.append(li);
    list.scrollTop = list.scrollHeight;
  }
}

async function loadRooms() {
  const { ok, body } = await api('/api/rooms');
  if (!ok) return;
  const list = $('rooms');
  list.replaceChildren();
  for (const room of body.rooms) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `#${room.name}`;
    a.textContent = `# ${room.name}`;
    a.dataset.room = room.name;
    a.addEventListener('click', (event) => {
      event.preventDefault();
      enterRoom(room.name);
    });
    li.append(a);
    list.append(li);
  }
  markRoom();
}

function markRoom() {
  for (const a of $('rooms').querySelectorAll('a')) a.setAttribute('aria-current', String(a.dataset.room === state.room));
  $('room-title').textContent = `# ${state.room}`;
}

async function loadMessages({ older = false } = {}) {
  const query = new URLSearchParams({ limit: '30' });
  if (older && state.oldest) query.set('before', state.oldest);
  const { ok, body } = await api(`/api/rooms/${encodeURIComponent(state.room)}/messages?${query}`);
  if (!ok) return;
  if (!older) $('messages').replaceChildren();
  const messages = body.messages;
  if (older) for (const m of [...messages].reverse()) renderMessage(m, { prepend: true });
  else for (const m of messages) renderMessage(m);
  if (messages.length > 0) state.oldest = messages[0].id;
  $('older').hidden = !body.more;
}

function setStatus(open) {
  const status = $('status');
  status.dataset.state = open ? 'open' : 'closed';
  status.textContent = open ? 'online' : state.ended ? 'signed out' : 'offline';
}

function connect() {
  state.socket?.close(1000);
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = new WebSocket(`${scheme}://${location.host}/ws/rooms/${encodeURIComponent(state.room)}`);
  state.socket = socket;
  socket.addEventListener('open', () => setStatus(true));
  socket.addEventListener('message', (event) => {
    const data = JSON.parse(event.data);
    if (data.type === 'message' && data.room === state.room) renderMessage(data.message);
  });
  socket.addEventListener('close', (event) => {
    if (state.socket !== socket) return;
    // 4001: the session ended (signed out in another tab, or expired).
    if (event.code === 4001) state.ended = true;
    setStatus(false);
    if (!state.ended) setTimeout(() => state.socket === socket && connect(), 1000);
  });
}

function enterRoom(room) {
  state.room = room;
  state.oldest = null;
  show($('send-error'), '');
  markRoom();
  loadMessages();
  connect();
}

async function send(event) {
  event.preventDefault();
  const input = $('text');
  const { ok, body } = await api(`/api/rooms/${encodeURIComponent(state.room)}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: input.value }),
  });
  if (!ok) return show($('send-error'), reason(body));
  show($('send-error'), '');
  input.value = '';
  input.focus();
}

async function uploadAvatar(event) {
  event.preventDefault();
  const file = $('avatar-file').files[0];
  if (!file) return show($('avatar-error'), 'Choose an image first');
  const form = new FormData();
  form.append('avatar', file);
  const { ok, body } = await api('/api/avatar', { method: 'POST', body: form });
  if (!ok) return show($('avatar-error'), reason(body));
  show($('avatar-error'), '');
  state.me.avatar = body.avatar;
  $('me-avatar').src = avatarUrl(state.me);
  $('avatar-file').value = '';
}

async function main() {
  const params = new URLSearchParams(location.search);
  if (params.get('error')) show($('signin-error'), params.get('error'));
  const { ok, body } = await api('/api/me');
  if (!ok) {
    $('signin').hidden = false;
    $('name').focus();
    return;
  }
  state.me = body;
  $('me-name').textContent = body.name;
  $('me-avatar').src = avatarUrl(body);
  $('chat').hidden = false;
  $('send-form').addEventListener('submit', send);
  $('avatar-form').addEventListener('submit', uploadAvatar);
  $('older').addEventListener('click', () => loadMessages({ older: true }));
  const room = location.hash.slice(1) || 'lobby';
  await loadRooms();
  enterRoom(room);
}

main();
