"""The three game pages of the browser tasks, as self-contained HTML: a maze, a memory
multiplication and a colour drawing.

Each page draws its puzzle from a seeded linear congruential generator (the seed is the task
parameter written into the page), runs offline in Chrome, and shows the text "Success!" when
solved, which is what the task checks on screen.
"""

from __future__ import annotations

_RNG = """
function SeededRandom(seed) {
  let state = seed >>> 0;
  this.next = function () {  // a linear congruential generator, uniform in [0, 1)
    state = (Math.imul(1664525, state) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}
const random = new SeededRandom(%(seed)d);
"""

MAZE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Maze</title>
<style>
  body { font-family: sans-serif; text-align: center; }
  #grid { display: inline-grid; grid-template-columns: repeat(4, 80px); gap: 2px; margin: 16px; }
  .cell { width: 80px; height: 80px; border: 1px solid #333; font-size: 44px; line-height: 80px; }
  .wall { background: #222; } .goal { background: #2e7d32; }
  button { font-size: 26px; padding: 12px 22px; margin: 4px; }
</style></head>
<body>
<div id="grid"></div>
<div><button onclick="move(-1, 0)">Up</button><button onclick="move(1, 0)">Down</button>
<button onclick="move(0, -1)">Left</button><button onclick="move(0, 1)">Right</button></div>
<script>%(rng)s
const size = 4;
const open = Array.from({length: size}, () => Array(size).fill(false));
let at = [0, 0];
(function carve() {  // depth-first from the top left, in random order, until the bottom right is reached
  const stack = [[0, 0]];
  while (stack.length) {
    const [r, c] = stack.pop();
    open[r][c] = true;
    if (r === size - 1 && c === size - 1) break;
    const steps = [[-1, 0], [1, 0], [0, -1], [0, 1]];
    for (let i = steps.length - 1; i > 0; i--) {
      const j = Math.floor(random.next() * (i + 1));
      [steps[i], steps[j]] = [steps[j], steps[i]];
    }
    for (const [dr, dc] of steps) {
      const nr = r + dr, nc = c + dc;
      if (nr >= 0 && nr < size && nc >= 0 && nc < size && !open[nr][nc]) stack.push([nr, nc]);
    }
  }
  open[size - 1][size - 1] = true;
})();
function draw() {
  const grid = document.getElementById('grid');
  grid.innerHTML = '';
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) {
    const cell = document.createElement('div');
    cell.className = 'cell' + (!open[r][c] ? ' wall' : (r === size - 1 && c === size - 1 ? ' goal' : ''));
    if (r === at[0] && c === at[1]) cell.textContent = 'X';
    grid.appendChild(cell);
  }
}
function move(dr, dc) {
  const r = at[0] + dr, c = at[1] + dc;
  if (r < 0 || r >= size || c < 0 || c >= size || !open[r][c]) return;
  at = [r, c];
  if (r === size - 1 && c === size - 1) { document.body.innerHTML = '<h1>Success!</h1>'; return; }
  draw();
}
draw();
</script></body></html>
"""

MULTIPLY = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Memory</title>
<style>
  body { font-family: sans-serif; text-align: center; margin-top: 48px; }
  #number { font-size: 52px; margin: 20px; } button, input { font-size: 24px; padding: 8px 16px; }
</style></head>
<body>
<div id="number"></div>
<button id="next" onclick="next()">Click Me</button>
<div id="form" style="display: none"><input id="answer" type="number" placeholder="Enter the product">
<button onclick="check()">Submit</button></div>
<div id="result"></div>
<script>%(rng)s
const shown = [];
let clicks = 0;
function show() {
  const n = 1 + Math.floor(random.next() * 10);
  shown.push(n);
  document.getElementById('number').textContent = n;
}
function next() {
  clicks += 1;
  if (clicks < 5) { show(); return; }
  document.getElementById('next').style.display = 'none';
  document.getElementById('number').style.display = 'none';
  document.getElementById('form').style.display = 'block';
}
function check() {
  const product = shown.reduce((a, b) => a * b, 1);
  const answer = parseInt(document.getElementById('answer').value, 10);
  document.getElementById('result').innerHTML = answer === product ? '<h2>Success!</h2>' : '<h2></h2>';
}
show();
</script></body></html>
"""

DRAW = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Colours</title>
<style>
  body { font-family: sans-serif; text-align: center; font-size: 14px; }
  #goal div { width: 46px; height: 46px; margin: 4px; display: inline-block; }
  #palette { display: flex; flex-wrap: wrap; justify-content: center; max-width: 300px; margin: 0 auto; }
  #palette button { width: 30px; height: 30px; margin: 3px; border: none; }
  canvas { border: 1px solid #000; touch-action: none; }
  .action { font-size: 16px; padding: 6px 12px; margin: 6px; }
</style></head>
<body>
<div id="goal"></div>
<canvas id="canvas" width="300" height="300"></canvas>
<p>Available Colors:</p><div id="palette"></div>
<button class="action" id="clear">Clear</button><button class="action" id="submit">Submit</button>
<p id="result"></p>
<script>%(rng)s
const colours = ['#ff0000', '#00ff00', '#0000ff', '#ffff00', '#ff00ff', '#00ffff', '#800000', '#008000',
                 '#000080', '#808000', '#800080', '#008080', '#ffa500', '#ff1493', '#9932cc', '#20b2aa',
                 '#4b0082', '#00ff7f', '#ff6347', '#00ced1', '#9400d3', '#f0e68c', '#ff8c00', '#228b22'];
const canvas = document.getElementById('canvas');
const pen = canvas.getContext('2d');
pen.lineWidth = 4;
const left = colours.slice();
const goal = [];
for (let i = 0; i < 3; i++) goal.push(left.splice(Math.floor(random.next() * left.length), 1)[0]);
for (const colour of goal) {
  const swatch = document.createElement('div');
  swatch.style.backgroundColor = colour;
  document.getElementById('goal').appendChild(swatch);
}
for (const colour of colours) {
  const button = document.createElement('button');
  button.style.backgroundColor = colour;
  button.onclick = () => { pen.strokeStyle = colour; };
  document.getElementById('palette').appendChild(button);
}
let last = null;
function point(event) {
  const box = canvas.getBoundingClientRect();
  const touch = event.touches ? event.touches[0] : event;
  return [(touch.clientX - box.left) * canvas.width / box.width, (touch.clientY - box.top) * canvas.height / box.height];
}
function start(event) { last = point(event); }
function stroke(event) {
  if (!last) return;
  event.preventDefault();
  const here = point(event);
  pen.beginPath(); pen.moveTo(last[0], last[1]); pen.lineTo(here[0], here[1]); pen.stroke();
  last = here;
}
function stop() { last = null; }
for (const [name, handler] of [['mousedown', start], ['mousemove', stroke], ['mouseup', stop], ['mouseout', stop],
                               ['touchstart', start], ['touchmove', stroke], ['touchend', stop]]) {
  canvas.addEventListener(name, handler);
}
const hex = (v) => v.toString(16).padStart(2, '0');
document.getElementById('clear').onclick = () => pen.clearRect(0, 0, canvas.width, canvas.height);
document.getElementById('submit').onclick = () => {
  const pixels = pen.getImageData(0, 0, canvas.width, canvas.height).data;
  const used = new Set();
  for (let i = 0; i < pixels.length; i += 4) used.add('#' + hex(pixels[i]) + hex(pixels[i + 1]) + hex(pixels[i + 2]));
  document.getElementById('result').textContent = goal.every((c) => used.has(c)) ? 'Success!' : '';
};
</script></body></html>
"""


def page(html: str, seed: int) -> str:
    """A page with its puzzle drawn from `seed`."""
    return html % {"rng": _RNG % {"seed": seed}}
