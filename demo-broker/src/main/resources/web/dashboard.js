// The demo-broker dashboard: follows /events (server-sent events, one sample a second), draws the
// last three minutes on canvases, and drives the follower controls (POST /api/replicas/ID/...).
// No libraries, nothing loaded from elsewhere: the page works offline.
'use strict';

(function () {
  const HISTORY_MS = 180 * 1000;
  // the window of the lateness tile
  const RECENT_MS = 60 * 1000;
  const COLORS = {
    acked: '#2e9e5b', timedOut: '#d64545', errors: '#e08a1e', parked: '#3b6fd8', emptyMaxWait: '#3b6fd8', emptyAtOnce: '#8a4fd1',
    bandLabel: '#8a3a3a'
  };
  // one colour per purgatory (produce, fetch, delete-records, rebalance, heartbeat), none repeated
  const PURGATORY_COLORS = ['#3b6fd8', '#2e9e5b', '#e08a1e', '#8a4fd1', '#1a9aa0', '#b5489a'];
  // the shading of the seconds a follower was stalled, one colour per replica
  const STALL_COLORS = ['rgba(214, 69, 69, 0.10)', 'rgba(224, 138, 30, 0.14)', 'rgba(138, 79, 209, 0.10)', 'rgba(59, 111, 216, 0.10)'];
  const samples = [];
  // members gone from a group between two samples, newest last: see groupEventsBetween
  const groupEvents = [];
  const MAX_GROUP_EVENTS = 8;
  let replicaIds = '';
  let partitionHeader = '';

  const $ = (id) => document.getElementById(id);
  const whole = (n) => Math.round(n).toLocaleString('en-US');
  const perSecond = (n) => (n >= 10 || n === 0 ? whole(n) : n.toFixed(1));

  function byteCount(n) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) {
      n /= 1024;
      i++;
    }
    return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
  }

  function cell(text, className) {
    const td = document.createElement('td');
    td.textContent = text;
    if (className) {
      td.className = className;
    }
    return td;
  }

  // ---- the live feed ----

  function add(sample) {
    if (samples.length > 0) {
      groupEventsBetween(samples[samples.length - 1], sample);
    }
    samples.push(sample);
    const oldest = sample.timeMs - HISTORY_MS;
    while (samples.length > 0 && samples[0].timeMs < oldest) {
      samples.shift();
    }
  }

  function connect() {
    const status = $('status');
    const events = new EventSource('events');
    events.addEventListener('history', (e) => {
      samples.length = 0;
      JSON.parse(e.data).forEach(add);
      render();
    });
    events.addEventListener('sample', (e) => {
      add(JSON.parse(e.data));
      render();
    });
    events.onopen = () => {
      status.textContent = 'live';
      status.className = 'status live';
    };
    events.onerror = () => {
      status.textContent = 'reconnecting…';
      status.className = 'status down';
    };
  }

  // ---- rendering ----

  function render() {
    if (samples.length === 0) {
      return;
    }
    const s = samples[samples.length - 1];
    $('acked-rate').textContent = perSecond(s.produce.ackedPerSec);
    $('acked-total').textContent = whole(s.produce.ackedTotal);
    $('timed-out-rate').textContent = perSecond(s.produce.timedOutPerSec);
    $('timed-out-total').textContent = whole(s.produce.timedOutTotal);
    $('errors-rate').textContent = perSecond(s.produce.otherErrorsPerSec);
    $('errors-total').textContent = whole(s.produce.otherErrorsTotal);
    $('fetch-data-total').textContent = whole(s.fetch.dataTotal);
    $('fetch-empty-max-wait-total').textContent = whole(s.fetch.emptyMaxWaitTotal);
    $('fetch-empty-at-once-total').textContent = whole(s.fetch.emptyAtOnceTotal);
    $('fetch-error-total').textContent = whole(s.fetch.errorTotal);
    $('parked').textContent = whole(s.purgatories.reduce((sum, p) => sum + p.delayed, 0));
    $('parked-detail').textContent = s.purgatories.map((p) => p.name + ' ' + whole(p.delayed)).join(', ');
    renderLateness(s);
    // the fetch chart shows consumers' long polls: hidden until something fetches
    $('fetches').hidden = s.fetch.dataTotal + s.fetch.emptyMaxWaitTotal + s.fetch.emptyAtOnceTotal + s.fetch.errorTotal === 0;
    $('connections').textContent = whole(s.connections);
    $('bytes-in').textContent = byteCount(s.bytesIn);
    $('bytes-out').textContent = byteCount(s.bytesOut);
    renderReplicas(s.replicas);
    renderPartitions(s.partitions, s.replicas);
    renderGroups(s.groups);
    renderGroupEvents();
    renderCharts();
  }

  // The mean lateness of the timeouts answered in the last minute, over every purgatory: the growth
  // of the lateness histograms' sums over the growth of their counts since the sample a minute ago.
  function renderLateness(now) {
    const since = samples.find((s) => s.timeMs >= now.timeMs - RECENT_MS) || now;
    const total = (s, field) => s.purgatories.reduce((sum, p) => sum + p.expiryLateness[field], 0);
    const expired = total(now, 'count') - total(since, 'count');
    const seconds = Math.round((now.timeMs - since.timeMs) / 1000);
    $('lateness-recent').textContent = expired > 0 ? ((total(now, 'sumMs') - total(since, 'sumMs')) / expired).toFixed(1) + ' ms' : '–';
    $('lateness-detail').textContent = expired > 0
      ? 'mean of ' + whole(expired) + ' timeouts in the last ' + seconds + ' s'
      : 'no timeout answered in the last ' + seconds + ' s';
  }

  function renderCharts() {
    const stalled = stallBands();
    chart($('chart-outcomes'), $('legend-outcomes'), [
      { label: 'acked', color: COLORS.acked, value: (s) => s.produce.ackedPerSec },
      { label: 'timed out', color: COLORS.timedOut, value: (s) => s.produce.timedOutPerSec },
      { label: 'other errors', color: COLORS.errors, value: (s) => s.produce.otherErrorsPerSec }
    ], stalled);
    chart($('chart-fetches'), $('legend-fetches'), [
      { label: 'with data', color: COLORS.acked, value: (s) => s.fetch.dataPerSec },
      { label: 'empty at max.wait.ms', color: COLORS.emptyMaxWait, value: (s) => s.fetch.emptyMaxWaitPerSec },
      { label: 'empty at once', color: COLORS.emptyAtOnce, value: (s) => s.fetch.emptyAtOncePerSec },
      { label: 'errors', color: COLORS.errors, value: (s) => s.fetch.errorPerSec }
    ], stalled);
    // the smallest ISR now, in the legend: it drops while a stalled follower is out of the ISR
    chart($('chart-isr'), $('legend-isr'), [
      { label: 'replicas of a partition', color: COLORS.acked,
        value: (s) => s.partitions.reduce((most, p) => Math.max(most, p.followerEndOffsets.length + 1), 0) },
      { label: 'smallest ISR of any partition', color: COLORS.timedOut, unit: 'replicas',
        value: (s) => (s.partitions.length === 0 ? 0 : s.partitions.reduce((least, p) => Math.min(least, p.isr.length), Infinity)) }
    ], stalled);
    const names = samples[samples.length - 1].purgatories.map((p) => p.name);
    chart($('chart-parked'), $('legend-parked'), names.map((name, i) => ({
      label: name,
      color: PURGATORY_COLORS[i % PURGATORY_COLORS.length],
      value: (s) => (s.purgatories.find((p) => p.name === name) || { delayed: 0 }).delayed
    })), stalled);
    chart($('chart-lateness'), $('legend-lateness'), names.map((name, i) => ({
      label: name + ' p99',
      color: PURGATORY_COLORS[i % PURGATORY_COLORS.length],
      value: (s) => (s.purgatories.find((p) => p.name === name) || { expiryLateness: { p99Ms: 0 } }).expiryLateness.p99Ms,
      unit: 'ms'
    })), stalled);
  }

  // One band per follower that was stalled at some time on the charts: the samples in which it was.
  function stallBands() {
    const ids = [];
    samples.forEach((s) => s.replicas.forEach((r) => {
      if (r.stalled && !ids.includes(r.id)) {
        ids.push(r.id);
      }
    }));
    return ids.sort((a, b) => a - b).map((id) => ({
      label: 'replica ' + id + ' stalled',
      color: STALL_COLORS[(id - 1) % STALL_COLORS.length],
      on: (s) => s.replicas.some((r) => r.id === id && r.stalled)
    }));
  }

  // The legend: a line per series (with its value now when it has a unit), then a block per band.
  function legend(element, series, bands) {
    const now = samples[samples.length - 1];
    const entries = series.map((line) => ({ kind: 'line', color: line.color, text: line.label + (line.unit ? ' ' + line.value(now) + ' ' + line.unit : '') }))
      .concat(bands.map((band) => ({ kind: 'band', color: band.color, text: band.label })));
    const key = entries.map((entry) => entry.text).join('|');
    if (element.dataset.key === key) {
      return;
    }
    element.dataset.key = key;
    element.textContent = '';
    entries.forEach((entry) => {
      const item = document.createElement('span');
      item.className = 'legend-' + entry.kind;
      const swatch = document.createElement('i');
      swatch.style.background = entry.color;
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(entry.text));
      element.appendChild(item);
    });
  }

  // the distance between the y axis's four gridlines: 1, 2, 2.5 or 5 times a power of ten, the
  // smallest that puts the top one at or above max, so that every label is a round number
  function niceStep(max) {
    const wanted = max > 0 ? max / 4 : 0.25;
    const magnitude = Math.pow(10, Math.floor(Math.log10(wanted)));
    for (const step of [1, 2, 2.5, 5]) {
      if (step * magnitude >= wanted) {
        return step * magnitude;
      }
    }
    return 10 * magnitude;
  }

  // a gridline's label: whole numbers grouped, fractions to the step's own digits (0.25, 0.5, 0.75)
  function tickLabel(value) {
    return Number.isInteger(value) ? whole(value) : String(Number(value.toFixed(6)));
  }

  // A line chart of the last three minutes; each band shades the background where band.on(sample)
  // holds, and names itself at the top of each shaded stretch when there is room.
  function chart(canvas, legendElement, series, bands) {
    legend(legendElement, series, bands);
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
    }
    const g = canvas.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    const left = 48;
    const right = width - 8;
    const top = 8;
    const bottom = height - 20;
    // the time axis spans the samples there are: 30 s at least, three minutes at most
    const now = samples[samples.length - 1].timeMs;
    const span = Math.min(HISTORY_MS, Math.max(30 * 1000, now - samples[0].timeMs));
    const start = now - span;
    const x = (t) => left + ((t - start) / span) * (right - left);
    let max = 0;
    samples.forEach((s) => series.forEach((line) => { max = Math.max(max, line.value(s)); }));
    const yMax = 4 * niceStep(max);
    const y = (v) => bottom - (v / yMax) * (bottom - top);

    g.save();
    g.beginPath();
    g.rect(left, top, right - left, bottom - top);
    g.clip();
    g.font = '10px system-ui, sans-serif';
    g.textAlign = 'left';
    g.textBaseline = 'top';
    bands.forEach((band, b) => {
      let stretchStart = null;
      samples.forEach((s, i) => {
        const from = i > 0 ? samples[i - 1].timeMs : s.timeMs - 1000;
        if (band.on(s)) {
          g.fillStyle = band.color;
          g.fillRect(x(from), top, x(s.timeMs) - x(from), bottom - top);
          stretchStart = stretchStart === null ? from : stretchStart;
        }
        if (stretchStart !== null && (!band.on(s) || i === samples.length - 1)) {
          const end = band.on(s) ? s.timeMs : from;
          const name = x(end) - x(stretchStart) >= g.measureText(band.label).width + 6 ? band.label : band.label.replace(/^replica (\d+).*/, 'r$1');
          g.fillStyle = COLORS.bandLabel;
          // at the stretch's start, but inside the plot: a stretch that ends at the right edge keeps its label whole
          const labelX = Math.min(Math.max(left, x(stretchStart)) + 3, right - g.measureText(name).width - 2);
          g.fillText(name, labelX, top + 2 + 12 * b);
          stretchStart = null;
        }
      });
    });
    g.restore();

    g.strokeStyle = '#e3e6ec';
    g.fillStyle = '#6b7385';
    g.lineWidth = 1;
    g.font = '11px system-ui, sans-serif';
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    for (let i = 0; i <= 4; i++) {
      const value = (yMax * i) / 4;
      const py = Math.round(y(value)) + 0.5;
      g.beginPath();
      g.moveTo(left, py);
      g.lineTo(right, py);
      g.stroke();
      g.fillText(tickLabel(value), left - 6, py);
    }
    g.textBaseline = 'top';
    const tickMs = span > 90 * 1000 ? 60 * 1000 : 10 * 1000;
    for (let ago = 0; ago <= span; ago += tickMs) {
      const label = ago === 0 ? 'now' : '−' + (tickMs >= 60 * 1000 ? ago / 60000 + ' min' : ago / 1000 + ' s');
      g.textAlign = ago === 0 ? 'right' : 'center';
      g.fillText(label, x(now - ago), bottom + 5);
    }

    g.lineWidth = 2;
    g.lineJoin = 'round';
    series.forEach((line) => {
      g.strokeStyle = line.color;
      g.beginPath();
      samples.forEach((s, i) => {
        const px = x(s.timeMs);
        const py = y(line.value(s));
        if (i === 0) {
          g.moveTo(px, py);
        } else {
          g.lineTo(px, py);
        }
      });
      g.stroke();
    });
  }

  function renderReplicas(replicas) {
    const body = document.querySelector('#replicas tbody');
    const ids = replicas.map((r) => r.id).join(',');
    if (ids !== replicaIds) {
      replicaIds = ids;
      body.textContent = '';
      replicas.forEach((r) => {
        const row = document.createElement('tr');
        row.dataset.replica = r.id;
        row.appendChild(cell('replica ' + r.id));
        row.appendChild(cell('', 'state'));
        const buttons = document.createElement('td');
        buttons.appendChild(button('stall', r.id, 'stall'));
        buttons.appendChild(document.createTextNode(' '));
        buttons.appendChild(button('resume', r.id, 'resume'));
        row.appendChild(buttons);
        const lag = document.createElement('td');
        const input = document.createElement('input');
        input.type = 'number';
        input.min = '0';
        input.max = '60000';
        input.className = 'lag';
        input.setAttribute('aria-label', 'mean lag of replica ' + r.id + ' in ms');
        lag.appendChild(input);
        lag.appendChild(document.createTextNode(' ms '));
        lag.appendChild(button('set', r.id, 'lag'));
        row.appendChild(lag);
        body.appendChild(row);
      });
    }
    replicas.forEach(showReplica);
  }

  function showReplica(r) {
    const row = document.querySelector('#replicas tr[data-replica="' + r.id + '"]');
    if (!row) {
      return;
    }
    const state = row.querySelector('.state');
    state.textContent = r.stalled ? 'stalled' : 'fetching';
    state.className = 'state ' + (r.stalled ? 'state-stalled' : 'state-fetching');
    row.querySelector('button[data-action="stall"]').disabled = r.stalled;
    row.querySelector('button[data-action="resume"]').disabled = !r.stalled;
    const input = row.querySelector('input.lag');
    if (document.activeElement !== input) {
      input.value = r.lagMs;
    }
  }

  function button(text, replicaId, action) {
    const b = document.createElement('button');
    b.textContent = text;
    b.className = action;
    b.dataset.replica = replicaId;
    b.dataset.action = action;
    b.addEventListener('click', () => control(replicaId, action, b));
    return b;
  }

  function control(replicaId, action, source) {
    const error = $('control-error');
    const init = { method: 'POST' };
    if (action === 'lag') {
      const value = source.parentElement.querySelector('input.lag').value;
      init.headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
      init.body = new URLSearchParams({ lagMs: value }).toString();
    }
    fetch('api/replicas/' + replicaId + '/' + action, init)
      .then((response) => response.text().then((text) => ({ response, text })))
      .then(({ response, text }) => {
        if (!response.ok) {
          error.textContent = action + ' replica ' + replicaId + ': ' + response.status + ' ' + text.trim();
          return;
        }
        error.textContent = '';
        showReplica(JSON.parse(text));
      })
      .catch((e) => {
        error.textContent = action + ' replica ' + replicaId + ' failed: ' + e.message;
      });
  }

  function renderPartitions(partitions, replicas) {
    const stalled = new Set(replicas.filter((r) => r.stalled).map((r) => r.id));
    // topics differ in replication factor: as many follower columns as the widest has
    const followers = partitions.reduce((most, p) => Math.max(most, p.followerEndOffsets.length), 0);
    const head = document.querySelector('#partitions thead');
    const header = String(followers);
    if (header !== partitionHeader) {
      partitionHeader = header;
      head.textContent = '';
      const row = document.createElement('tr');
      const names = ['partition', 'log start', 'low watermark', 'leader end offset', 'high watermark'];
      for (let id = 1; id <= followers; id++) {
        names.push('replica ' + id + ' end offset');
      }
      names.push('ISR', 'min.insync');
      names.forEach((name) => {
        const th = document.createElement('th');
        th.textContent = name;
        row.appendChild(th);
      });
      head.appendChild(row);
    }
    const body = document.querySelector('#partitions tbody');
    body.textContent = '';
    partitions.forEach((p) => {
      const row = document.createElement('tr');
      row.appendChild(cell(p.topic + '-' + p.partition));
      row.appendChild(cell(whole(p.logStartOffset), 'num'));
      row.appendChild(cell(whole(p.lowWatermark), p.lowWatermark < p.logStartOffset ? 'num behind' : 'num'));
      row.appendChild(cell(whole(p.leaderEndOffset), 'num'));
      row.appendChild(cell(whole(p.highWatermark), p.highWatermark < p.leaderEndOffset ? 'num behind' : 'num'));
      p.followerEndOffsets.forEach((offset, i) => {
        const behind = p.leaderEndOffset - offset;
        const inIsr = p.isr.includes(i + 1);
        const text = whole(offset) + (behind > 0 ? ' (−' + whole(behind) + ')' : '') + (inIsr ? '' : ' out of ISR');
        // a follower in the ISR a few records behind is replicating as it should: grey; stalled or out of the ISR: red
        const alarm = !inIsr ? ' out-of-isr' : behind > 0 && stalled.has(i + 1) ? ' behind' : behind > 0 ? ' lagging' : '';
        row.appendChild(cell(text, 'num' + alarm));
      });
      for (let id = p.followerEndOffsets.length + 1; id <= followers; id++) {
        row.appendChild(cell('no replica ' + id));
      }
      row.appendChild(cell('[' + p.isr.join(', ') + ']', p.isr.length < p.minInsyncReplicas ? 'behind' : ''));
      row.appendChild(cell(String(p.minInsyncReplicas), 'num'));
      body.appendChild(row);
    });
  }

  // one row per member (a group without members gets one row); the group's cells span its rows
  function renderGroups(groups) {
    const body = document.querySelector('#groups tbody');
    body.textContent = '';
    $('no-groups').hidden = groups.length > 0;
    groups.forEach((g) => {
      const members = g.members.length > 0 ? g.members : [null];
      const offsets = g.offsets.map((o) => o.topic + '-' + o.partition + ' ' + whole(o.committed) + ' · lag ' + whole(o.lag)).join(', ');
      members.forEach((m, i) => {
        const row = document.createElement('tr');
        if (i === 0) {
          row.appendChild(spanned(cell(g.groupId), members.length));
          row.appendChild(spanned(cell(g.state, 'group-state-' + g.state), members.length));
          row.appendChild(spanned(cell(String(g.generation), 'num'), members.length));
          row.appendChild(spanned(cell(g.protocol || '–'), members.length));
        }
        if (m) {
          // a leader is chosen by a completed rebalance: none at generation 0, while the group first forms
          const leader = g.generation > 0 && m.memberId === g.leader ? ' (leader)' : '';
          row.appendChild(cell(m.clientId + ', ' + m.host + leader));
          row.appendChild(cell(m.assignment.length > 0 ? m.assignment.join(', ') : '–'));
          const late = m.sinceHeartbeatMs > m.sessionTimeoutMs / 2;
          row.appendChild(cell(whole(m.sinceHeartbeatMs) + ' / ' + whole(m.sessionTimeoutMs) + ' ms', 'num' + (late ? ' session-late' : '')));
        } else {
          row.appendChild(cell('no members'));
          row.appendChild(cell('–'));
          row.appendChild(cell('–'));
        }
        if (i === 0) {
          row.appendChild(spanned(cell(offsets || '–', 'offsets'), members.length));
        }
        body.appendChild(row);
      });
    });
  }

  // Members present in one sample and gone in the next. One whose last heartbeat was a session
  // timeout or more before the second sample expired: the broker's DelayedHeartbeat ran out (it
  // crashed, or stopped heartbeating). The others left (LeaveGroup) or were removed in a rebalance.
  function groupEventsBetween(before, after) {
    const present = new Set();
    after.groups.forEach((g) => g.members.forEach((m) => present.add(g.groupId + '\u0000' + m.memberId)));
    const elapsedMs = after.timeMs - before.timeMs;
    before.groups.forEach((g) => g.members.forEach((m) => {
      if (present.has(g.groupId + '\u0000' + m.memberId)) {
        return;
      }
      const expired = m.sinceHeartbeatMs + elapsedMs + 250 >= m.sessionTimeoutMs; // 250 ms: the two clocks' skew
      groupEvents.push({
        timeMs: after.timeMs,
        expired: expired,
        text: 'group ' + g.groupId + ': member ' + m.clientId + ', ' + m.host
          + (expired ? ' expired: no heartbeat within its ' + whole(m.sessionTimeoutMs) + ' ms session (DelayedHeartbeat)' : ' left')
      });
    }));
    while (groupEvents.length > MAX_GROUP_EVENTS) {
      groupEvents.shift();
    }
  }

  function renderGroupEvents() {
    const list = $('group-events');
    list.textContent = '';
    groupEvents.forEach((e) => {
      const item = document.createElement('li');
      item.textContent = new Date(e.timeMs).toLocaleTimeString('en-GB') + '  ' + e.text;
      if (e.expired) {
        item.className = 'member-expired';
      }
      list.appendChild(item);
    });
  }

  function spanned(td, rows) {
    td.rowSpan = rows;
    return td;
  }

  window.addEventListener('resize', () => {
    if (samples.length > 0) {
      renderCharts();
    }
  });
  connect();
}());
