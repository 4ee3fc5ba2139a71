// The pass viewer's clicks: values, source lines, folding; and #selftest,
// which a headless browser loads to check the page (tle's browser test).
(function () {
  'use strict';
  var colors = 8;
  var valueColor = {}; // value -> its highlight color
  var srcOn = {};      // .tle line -> highlighted
  function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function q(s) { return '"' + String(s).replace(/["\\]/g, '\\$&') + '"'; }

  // reveal scrolls each column to its first highlighted line when that line is out of view.
  function reveal(els) {
    var seen = [];
    els.forEach(function (e) {
      var bd = e.closest('.bd');
      if (!bd || seen.indexOf(bd) >= 0) return;
      seen.push(bd);
      var ln = e.closest('.ln') || e;
      var top = ln.offsetTop;
      if (top < bd.scrollTop || top > bd.scrollTop + bd.clientHeight - 24) {
        bd.scrollTop = Math.max(0, top - bd.clientHeight / 3);
      }
    });
  }
  function toggleValue(id) {
    var els = all('.v[data-v=' + q(id) + ']');
    if (id in valueColor) {
      els.forEach(function (e) { e.classList.remove('hv' + valueColor[id]); });
      delete valueColor[id];
      return;
    }
    var taken = {};
    Object.keys(valueColor).forEach(function (k) { taken[valueColor[k]] = true; });
    var c = 0;
    while (c < colors - 1 && taken[c]) c++;
    valueColor[id] = c;
    els.forEach(function (e) { e.classList.add('hv' + c); });
    reveal(els);
  }
  function toggleSrc(n) {
    var els = all('.ln[data-s=' + q(n) + ']');
    if (srcOn[n]) {
      els.forEach(function (e) { e.classList.remove('hs'); });
      delete srcOn[n];
      return;
    }
    srcOn[n] = true;
    els.forEach(function (e) { e.classList.add('hs'); });
    reveal(els);
  }
  function clear() {
    Object.keys(valueColor).forEach(toggleValue);
    Object.keys(srcOn).forEach(toggleSrc);
  }
  document.addEventListener('click', function (ev) {
    var t = ev.target;
    var h = t.closest('h2');
    if (h) { h.parentNode.classList.toggle('folded'); return; }
    var v = t.closest('.v');
    if (v) { toggleValue(v.getAttribute('data-v')); return; }
    var ln = t.closest('.ln[data-s]');
    if (ln) toggleSrc(ln.getAttribute('data-s'));
  });
  document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') clear(); });

  // columnsWith lists the columns holding an element that matches sel.
  function columnsWith(sel) {
    return all('.col').filter(function (c) { return c.querySelector(sel); })
      .map(function (c) { return c.getAttribute('data-name'); });
  }
  // selftest clicks, as a user would, the value of the tile IR that lives
  // in the most columns and the source line whose ops reach the most
  // columns, and writes what got highlighted into #selftest as JSON.
  function selftest() {
    var cols = all('.col');
    var r = {
      columns: cols.map(function (c) { return c.getAttribute('data-name'); }),
      kinds: cols.map(function (c) { return c.getAttribute('data-kind'); }),
      folded: all('.col.folded').map(function (c) { return c.getAttribute('data-name'); }),
      changed: all('.col').filter(function (c) { return c.querySelector('.ch'); }).map(function (c) { return c.getAttribute('data-name'); })
    };
    var valueCols = {}, srcCols = {};
    cols.forEach(function (c, i) {
      all('.v', c).forEach(function (e) {
        var id = e.getAttribute('data-v');
        (valueCols[id] = valueCols[id] || {})[i] = true;
      });
      all('.ln[data-s]', c).forEach(function (e) {
        var s = e.getAttribute('data-s');
        (srcCols[s] = srcCols[s] || {})[i] = true;
      });
    });
    function best(m) {
      var b = null, n = 0;
      Object.keys(m).forEach(function (k) { var c = Object.keys(m[k]).length; if (c > n) { b = k; n = c; } });
      return b;
    }
    var v = best(valueCols);
    if (v !== null) {
      var el = document.querySelector('.v[data-v=' + q(v) + ']');
      el.click();
      r.value = { id: v, text: el.textContent, columns: columnsWith('.hv' + valueColor[v]) };
    }
    var s = best(srcCols);
    if (s !== null) {
      var line = document.querySelector('.src .ln[data-s=' + q(s) + ']') || document.querySelector('.ln[data-s=' + q(s) + ']');
      line.click();
      r.source = { line: +s, text: line.textContent, columns: columnsWith('.ln.hs') };
    }
    var out = document.getElementById('selftest');
    out.textContent = JSON.stringify(r);
    out.hidden = false;
  }
  // The page's address may ask for a view (joined by &):
  // #only=NAME,NAME folds every other column (for screenshots);
  // #selftest runs the self-test.
  var only = /(?:^#|&)only=([^&]*)/.exec(location.hash);
  if (only) {
    var keep = decodeURIComponent(only[1]).split(',');
    all('.col').forEach(function (c) { c.classList.toggle('folded', keep.indexOf(c.getAttribute('data-name')) < 0); });
  }
  // #line=N highlights the ops of .tle line N, as a click on it would.
  var line = /(?:^#|&)line=(\d+)/.exec(location.hash);
  if (line) toggleSrc(line[1]);
  if (/(?:^#|&)selftest\b/.test(location.hash)) selftest();
})();
