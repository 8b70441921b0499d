// The static edition's grader: the course's one grading pipeline (posenc/exercises/rule.py), the
// precision rule (posenc/exercises/verdict.py) and the reading of typed text
// (posenc/exercises/reading.py), ported line by line so that a page's verdict is the kernel's
// verdict on the same rule and the same typed answer. tests/test_grader_js.py feeds both the
// same answers and compares the verdicts. No dependencies; runs in a browser and in node.
(function (root) {
  "use strict";

  // ---------------------------------------------------------------- numbers like Python's
  function pow10(n) { return Number("1e" + n); }              // correctly rounded, like 10.0 ** n

  function roundHalfEven(x) {                                    // Python's round(x)
    if (Math.abs(x % 1) === 0.5) { return 2 * Math.round(x / 2); }
    return Math.round(x);
  }

  function isTie(x, f) {            // is x exactly halfway between two f-decimal numbers?
    var s = Math.abs(x).toFixed(100), dot = s.indexOf(".");
    var rest = s.slice(dot + 1 + f);
    return rest.charAt(0) === "5" && /^0*$/.test(rest.slice(1));
  }

  function fixed(x, f) {                                         // f"{x:.{f}f}": ties to even
    if (!isTie(x, f)) { return x.toFixed(f); }                   // toFixed rounds a tie away from 0
    var lo = Math.floor(Math.abs(x) * pow10(f));
    var even = (lo % 2 === 0) ? lo : lo + 1;
    var s = (even / pow10(f)).toFixed(f);
    return (x < 0 && Number(s) !== 0) ? "-" + s : s;
  }

  function formatG6(v) {                                         // f"{v:.6g}"
    if (v === 0) { return (1 / v < 0) ? "-0" : "0"; }
    if (!isFinite(v)) { return isNaN(v) ? "nan" : (v > 0 ? "inf" : "-inf"); }
    var exp = Number(v.toExponential(5).split("e")[1]);
    var s;
    if (exp < -4 || exp >= 6) {
      var parts = v.toExponential(5).split("e");
      var m = parts[0].replace(/\.?0+$/, "");
      var e = Number(parts[1]);
      s = m + "e" + (e < 0 ? "-" : "+") + (Math.abs(e) < 10 ? "0" : "") + Math.abs(e);
    } else {
      s = fixed(v, Math.max(0, 5 - exp));
      if (s.indexOf(".") >= 0) { s = s.replace(/\.?0+$/, ""); }
    }
    return s;
  }

  function pyRepr(s) {                                           // repr(str)
    var q = (s.indexOf("'") >= 0 && s.indexOf('"') < 0) ? '"' : "'";
    var out = "";
    for (var i = 0; i < s.length; i++) {
      var c = s.charAt(i), code = s.charCodeAt(i);
      if (c === "\\") { out += "\\\\"; } else if (c === q) { out += "\\" + q; } else if (c === "\n") { out += "\\n"; } else if (c === "\r") { out += "\\r"; } else if (c === "\t") { out += "\\t"; } else if (code < 0x20 || code === 0x7f) { out += "\\x" + (code < 16 ? "0" : "") + code.toString(16); } else { out += c; }
    }
    return q + out + q;
  }

  // ---------------------------------------------------------------- reading typed text
  var COMMA_MESSAGE = "小数点要用「.」：这里的逗号像是小数点（例如 -0,2794 要写成 -0.2794）。";
  var FUNCTIONS = { sin: Math.sin, cos: Math.cos, tan: Math.tan, exp: Math.exp, sqrt: Math.sqrt,
                    log: Math.log, log2: Math.log2, log10: Math.log10 };
  var TOKEN = /\s*(?:((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z_0-9.]*|π|∞)|(\*\*|[-+*/(),\[\]])|('[^']*'|"[^"]*"))/y;

  function normaliseText(text) {
    return String(text).trim().replace(/\u2212/g, "-").replace(/\uff0d/g, "-").replace(/\uff0e/g, ".")
      .replace(/\uff0c/g, ",").replace(/（/g, "(").replace(/）/g, ")");
  }

  function Unreadable() {}

  function tokens(text) {
    var out = [], pos = 0;
    while (pos < text.length) {
      TOKEN.lastIndex = pos;
      var m = TOKEN.exec(text);
      if (m === null || TOKEN.lastIndex === pos) {
        if (text.slice(pos).trim() === "") { break; }
        throw new Unreadable();
      }
      if (m[1] !== undefined) { out.push(["num", m[1]]); } else if (m[2] !== undefined) { out.push(["name", m[2]]); } else if (m[3] !== undefined) { out.push(["op", m[3]]); } else { out.push(["str", m[4]]); }
      pos = TOKEN.lastIndex;
    }
    return out;
  }

  function Parser(toks) { this.t = toks; this.i = 0; }
  Parser.prototype.peek = function () { return this.i < this.t.length ? this.t[this.i] : [null, null]; };
  Parser.prototype.take = function (value) {
    var tok = this.peek();
    if (tok[0] === null || (value !== undefined && tok[1] !== value)) { throw new Unreadable(); }
    this.i += 1;
    return tok;
  };
  Parser.prototype.done = function () { return this.i === this.t.length; };
  Parser.prototype.value = function () {
    if (this.peek()[1] === "[") {
      this.take("[");
      var items = [];
      if (this.peek()[1] !== "]") {
        items.push(this.value());
        while (this.peek()[1] === ",") {
          this.take(",");
          if (this.peek()[1] === "]") { break; }
          items.push(this.value());
        }
      }
      this.take("]");
      return items;
    }
    return this.expr();
  };
  function num(v) { if (typeof v !== "number") { throw new Unreadable(); } return v; }
  Parser.prototype.expr = function () {
    var v = this.term();
    while (this.peek()[1] === "+" || this.peek()[1] === "-") {
      var op = this.take()[1], w = this.term();
      v = op === "+" ? num(v) + num(w) : num(v) - num(w);
    }
    return v;
  };
  Parser.prototype.term = function () {
    var v = this.unary();
    while (this.peek()[1] === "*" || this.peek()[1] === "/") {
      var op = this.take()[1], w = this.unary();
      if (op === "/") { if (num(w) === 0) { throw new Unreadable(); } v = num(v) / w; } else { v = num(v) * num(w); }
    }
    return v;
  };
  Parser.prototype.unary = function () {
    if (this.peek()[1] === "-" || this.peek()[1] === "+") {
      var op = this.take()[1], v = this.unary();
      return op === "-" ? -num(v) : num(v);
    }
    return this.power();
  };
  Parser.prototype.power = function () {
    var v = this.atom();
    if (this.peek()[1] === "**") {
      this.take("**");
      var w = num(this.unary());
      v = num(v);
      if (v === 0 && w < 0) { throw new Unreadable(); }             // ZeroDivisionError
      if (v < 0 && !Number.isInteger(w)) { throw new Unreadable(); } // complex
      var r = Math.pow(v, w);
      if (!isFinite(r) && isFinite(v) && isFinite(w)) { throw new Unreadable(); }   // OverflowError
      v = r;
    }
    return v;
  };
  Parser.prototype.atom = function () {
    var tok = this.take(), kind = tok[0], t = tok[1];
    if (kind === "num") { return Number(t); }
    if (kind === "op" && t === "(") { var v = this.expr(); this.take(")"); return v; }
    if (kind === "name") {
      var name = t.replace(/^(math|np|numpy)\./, "");
      if (name === "pi" || name === "π") { return Math.PI; }
      if (name === "inf" || name === "∞") { return Infinity; }
      if (name === "float") {
        this.take("(");
        var s = this.take();
        this.take(")");
        if (s[0] !== "str") { throw new Unreadable(); }
        var inner = s[1].slice(1, -1).trim().toLowerCase();
        var sign = inner.charAt(0) === "-" ? -1 : 1;
        var bare = inner.replace(/^[+-]+/, "");
        if (bare !== "inf" && bare !== "infinity") { throw new Unreadable(); }
        return sign * Infinity;
      }
      if (Object.prototype.hasOwnProperty.call(FUNCTIONS, name)) {
        this.take("(");
        var x = num(this.expr());
        this.take(")");
        if ((name === "sqrt" && x < 0) || ((name === "log" || name === "log2" || name === "log10") && x <= 0) ||
            ((name === "sin" || name === "cos" || name === "tan") && !isFinite(x))) { throw new Unreadable(); }
        var y = FUNCTIONS[name](x);
        if (name === "exp" && !isFinite(y) && isFinite(x)) { throw new Unreadable(); }
        return y;
      }
    }
    throw new Unreadable();
  };

  function readText(text) {          // reading.read_text: a number, nested lists of numbers, or null
    text = normaliseText(text);
    if (!text) { return null; }
    try {
      var toks = tokens(text);
      if (!toks.length) { return null; }
      var p = new Parser(toks), first = p.value();
      if (p.done()) { return first; }
      var items = [first];
      while (!p.done()) {
        p.take(",");
        if (p.done()) { break; }
        items.push(p.value());
      }
      return items;
    } catch (e) {
      if (e instanceof Unreadable || e instanceof RangeError) { return null; }
      throw e;
    }
  }

  function hasDecimalComma(text) { return /^[+-]?\d+,\d+$/.test(normaliseText(text)); }

  function readLetters(text, allowed) {              // reading.read_letters for a typed string
    var letters = [];
    var low = String(text).toLowerCase();
    for (var i = 0; i < low.length; i++) { if (/\p{L}/u.test(low.charAt(i))) { letters.push(low.charAt(i)); } }
    for (var j = 0; j < letters.length; j++) { if (allowed.indexOf(letters[j]) < 0) { return null; } }
    return uniqueSorted(letters);
  }

  function uniqueSorted(xs) {
    var out = [];
    xs.slice().sort().forEach(function (x) { if (out[out.length - 1] !== x) { out.push(x); } });
    return out;
  }

  // ---------------------------------------------------------------- tagged values (choices)
  function shownValue(t) {                        // reading.shown_value
    var kind = t[0], v = t[1];
    if (kind === "num") { return Number.isInteger(v) ? String(v) : formatG6(v); }
    if (kind === "seq") { return "[" + v.map(shownValue).join(", ") + "]"; }
    if (kind === "str") { return pyRepr(v); }
    if (kind === "bool") { return v ? "True" : "False"; }
    return String(v);
  }

  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

  // ---------------------------------------------------------------- the precision rule
  var SIGNIFICANT_DIGITS = 3, DECIMALS = 4;
  var ROUNDING_SLIP = "方法对了，舍入太粗/位数不够";

  function asked(decimals) {
    if (decimals === null || decimals === undefined) { return "保留 " + SIGNIFICANT_DIGITS + " 位有效数字（或 " + DECIMALS + " 位小数）"; }
    return "保留 " + decimals + " 位小数";
  }

  function tol1(expected, decimals) {              // verdict.tolerance for one number
    var v = Math.abs(expected), t;
    if (decimals !== null && decimals !== undefined) {
      t = pow10(-decimals);
    } else {
      var e = Math.floor(Math.log10(v > 0 ? v : 1));
      t = Math.max(v > 0 ? pow10(e - (SIGNIFICANT_DIGITS - 1)) : 0, pow10(-DECIMALS));
    }
    return t * (1 + 1e-9) + 1e-12;
  }

  function flat(x) { return Array.isArray(x) ? [].concat.apply([], x.map(flat)) : [x]; }
  function shape(x) { return Array.isArray(x) ? [x.length].concat(x.length ? shape(x[0]) : []) : []; }
  function sameShape(a, b) { return same(shape(a), shape(b)) && flat(a).length === flat(b).length && ragged(a) === false && ragged(b) === false; }
  function ragged(x) {
    if (!Array.isArray(x)) { return false; }
    var s = JSON.stringify(x.map(shape));
    return x.some(function (y) { return JSON.stringify(shape(y)) !== JSON.stringify(shape(x[0])); }) || x.some(ragged) || (s === null);
  }

  function agrees(got, expected, decimals) {
    if (!sameShape(got, expected)) { return false; }
    var g = flat(got), e = flat(expected);
    for (var i = 0; i < g.length; i++) { if (!(Math.abs(g[i] - e[i]) <= tol1(e[i], decimals))) { return false; } }
    return true;
  }

  function slipAgrees(got, value, decimals) {
    if (!sameShape(got, value)) { return false; }
    var g = flat(got), v = flat(value);
    for (var i = 0; i < g.length; i++) {
      var t = tol1(v[i]);
      if (decimals !== null && decimals !== undefined && Math.abs(v[i]) >= pow10(1 - decimals)) { t = Math.max(t, tol1(v[i], decimals)); }
      if (!(Math.abs(g[i] - v[i]) <= t)) { return false; }
    }
    return true;
  }

  function roundings(value, decimals) {
    var out = [];
    if (value === 0 || !isFinite(value)) { return out; }
    var e = Math.floor(Math.log10(Math.abs(value)));
    var units = [["2 位有效数字", pow10(e - 1)]];
    var n = (decimals === null || decimals === undefined) ? DECIMALS : decimals;
    for (var places = 0; places < n; places++) {
      if (pow10(-places) <= pow10(e - 1)) { units.push([places ? places + " 位小数" : "整数", pow10(-places)]); }
    }
    units.forEach(function (u) {
      out.push([u[0], roundHalfEven(value / u[1]) * u[1]]);
      out.push([u[0], Math.trunc(value / u[1]) * u[1]]);
    });
    return out;
  }

  function roundedAs(got, expected, decimals) {
    var rs = roundings(expected, decimals);
    for (var i = 0; i < rs.length; i++) {
      var v = rs[i][1];
      if (v !== 0 && Math.abs(got - v) <= 1e-9 * Math.max(Math.abs(v), 1.0) && !agrees(v, expected, decimals)) { return rs[i][0]; }
    }
    return null;
  }

  function roundingSlip(got, expected, decimals) {
    if (!sameShape(got, expected) || agrees(got, expected, decimals)) { return null; }
    var tail = "这道题要" + asked(decimals) + "，四舍五入或截断都行；中间步骤不要先舍入。";
    var g = flat(got), x = flat(expected), whats = [];
    for (var i = 0; i < g.length; i++) {
      if (agrees(g[i], x[i], decimals)) { continue; }
      var w = roundedAs(g[i], x[i], decimals);
      if (w === null) { whats = null; break; }
      whats.push(w);
    }
    if (whats && whats.length) {
      return ROUNDING_SLIP + "：这像是把结果保留到了" + (/^\d/.test(whats[0]) ? " " : "") + whats[0] + "。" + tail;
    }
    if (!Array.isArray(expected) && expected !== 0 && Math.abs(got - expected) <= 0.02 * Math.abs(expected) * (1 + 1e-9)) {
      var gap = Math.abs(got - expected) / Math.abs(expected);
      return ROUNDING_SLIP + "：很接近（差 " + fixed(gap * 100, 1) + "%），像是中间步骤舍入得太早。" + tail;
    }
    return null;
  }

  // ---------------------------------------------------------------- the pipeline
  var SLIP_MARKS = "①②③④⑤⑥", SEVERAL_SLIPS = "可能是两种失误之一。", OR_SLIP = " 或者：";
  var PROMPT = "把 None 换成你的答案，再运行这个单元格。";

  function Refused(message) { this.message = message; }

  function verdict(ok, kind, message) {
    return { ok: ok, kind: kind, message: message,
             head: kind === "pending" ? "待作答" : (ok ? "正确 ✓" : "再想想 ✗") };
  }

  function isWhole(x) { return typeof x === "number" && isFinite(x) && Number.isInteger(x); }

  function numbersOf(answer, rule) {
    var single = rule.read === "int" || (rule.read === "number" && rule.shape.length === 0);
    if (single && hasDecimalComma(answer)) { throw new Refused(COMMA_MESSAGE); }
    var nums = readText(answer);
    if (nums === null) { throw new Refused(rule.expected); }
    return nums;
  }

  function readAnswer(answer, rule) {    // rule._read, for typed text (choice: a tagged value)
    var read = rule.read, valid = rule.valid || {};
    if (read === "choice") {
      if (valid.options && !valid.options.some(function (o) { return same(o, answer); })) { throw new Refused(rule.expected); }
      return answer;
    }
    if (read === "letters") {
      if ((rule.none_words || []).indexOf(String(answer).trim().toLowerCase()) >= 0) { answer = ""; }
      var letters = readLetters(answer, rule.letters);
      if (letters === null) { throw new Refused(rule.expected); }
      return letters;
    }
    var nums = numbersOf(answer, rule);
    if (read === "number") {
      if (!same(shape(nums), rule.shape) || ragged(nums) || !flat(nums).every(function (v) { return typeof v === "number" && isFinite(v); })) { throw new Refused(rule.expected); }
      return nums;
    }
    var list = Array.isArray(nums) ? nums : [nums];
    if (list.some(Array.isArray) || !list.every(isWhole)) { throw new Refused(rule.expected); }
    if (read === "int") {
      if (Array.isArray(nums)) { throw new Refused(rule.expected); }
      var range = valid.range || [null, null];
      if ((range[0] !== null && nums < range[0]) || (range[1] !== null && nums > range[1])) { throw new Refused(rule.expected); }
      return nums;
    }
    if (read === "ints") { return uniqueSorted(list.map(String)).map(Number).sort(function (a, b) { return a - b; }); }
    if (!Array.isArray(nums) || list.length < (valid.min_length || 1) || (valid.length !== undefined && list.length !== valid.length)) { throw new Refused(rule.expected); }
    return list;
  }

  function infiniteSign(answer) {
    var v = readText(answer);
    return (typeof v === "number" && !isFinite(v) && !isNaN(v)) ? (v > 0 ? 1 : -1) : 0;
  }

  function agreeWith(value, rule) {
    if (rule.right === null) { return false; }
    if (rule.read === "number") {
      if (agrees(value, rule.right, rule.decimals)) { return true; }
      if (rule.mod !== null && rule.mod !== undefined) {
        var turns = roundHalfEven((value - rule.right) / rule.mod);
        if (agrees(value - turns * rule.mod, rule.right, rule.decimals)) { return turns; }
      }
      return false;
    }
    return same(value, rule.right);
  }

  function slipHit(value, slip, rule) {
    if (slip.at !== undefined) {
      var i = slip.at;
      if (i >= value.length) { return false; }
      if (slip.not !== undefined) { return slip.not.indexOf(value[i]) < 0; }
      return value[i] === slip.value;
    }
    if (rule.read === "number") {
      if (!same(shape(slip.value), shape(value))) { return false; }
      return slip.match === "agrees" ? agrees(value, slip.value, rule.decimals) : slipAgrees(value, slip.value, rule.decimals);
    }
    return same(value, slip.value);
  }

  function signSlip(arr, rule) {
    var s = rule.sign, c = flat(s.center), r = flat(rule.right), a = flat(arr);
    var got = a.map(function (x, i) { return x - c[i]; }), right = r.map(function (x, i) { return x - c[i]; });
    var absG = got.map(Math.abs), absR = right.map(Math.abs);
    var differ = got.some(function (x, i) { return Math.sign(x) !== Math.sign(right[i]); });
    if (!(agrees(absG, absR, rule.decimals) && differ)) { return null; }
    var bad = [];
    for (var i = 0; i < got.length; i++) {
      if (Math.sign(got[i]) !== Math.sign(right[i]) && Math.abs(right[i]) > tol1(right[i], rule.decimals)) { bad.push(i); }
    }
    if (!bad.length) { return null; }
    return s.lead.replace("{dims}", bad.join(", ")) + s.pairs[Math.floor(bad[0] / 2)];
  }

  function wrongMessage(value, rule) {
    if (rule.wrong_by_value && Object.prototype.hasOwnProperty.call(rule.wrong_by_value, String(value))) { return rule.wrong_by_value[String(value)]; }
    if (rule.wrong_at && rule.wrong_at.length && rule.read === "number" && rule.right !== null) {
      var g = flat(value), r = flat(rule.right);
      for (var i = 0; i < g.length; i++) { if (Math.abs(g[i] - r[i]) > tol1(r[i], rule.decimals)) { return rule.wrong_at[i]; } }
      return rule.wrong_at[0];
    }
    if (rule.reasons) {
      var rs = rule.reasons, got = value, right = rule.right, out = [];
      got.filter(function (x) { return right.indexOf(x) < 0; }).sort().forEach(function (x) { out.push(rs.describe[x] + "：" + rs.extra); });
      right.filter(function (x) { return got.indexOf(x) < 0; }).sort().forEach(function (x) { out.push("漏了 " + rs.describe[x] + "：" + rs.missing[x]); });
      return out.join("；") + "。";
    }
    return rule.wrong;
  }

  // grade(rule, answer): answer is typed text (a string), or for a choice the tagged option
  // (["str", "整数除法"], ["bool", true], ...); null is the unanswered prompt.
  function grade(rule, answer) {
    if (answer === null || answer === undefined) { return verdict(false, "pending", PROMPT); }
    var echo = (rule.read === "choice") ? shownValue(answer) : (rule.read === "letters" ? pyRepr(String(answer).trim()) : String(answer).trim());
    function said(message, kind) {
      return verdict(false, kind, (rule.echo === false ? message : "你填的是 " + echo + "：" + message).trim());
    }
    if (rule.infinite && rule.read !== "choice") {
      var sign = infiniteSign(answer);
      if (sign) {
        var inf = rule.infinite[sign < 0 ? "neg" : "pos"];
        return inf[0] ? verdict(true, "right", inf[1]) : said(inf[1], "slip");
      }
    }
    var value;
    try { value = readAnswer(answer, rule); } catch (e) {
      if (e instanceof Refused) { return said(e.message, "refused"); }
      throw e;
    }
    var agree = agreeWith(value, rule);
    if (agree === true) { return verdict(true, "right", rule.ok); }
    if (agree) { return verdict(true, "right", rule.ok_turns.replace("{turns}", (agree > 0 ? "+" : "") + agree)); }
    var named = [];
    (rule.slips || []).forEach(function (s) { if (slipHit(value, s, rule)) { named.push(s.message); } });
    if (rule.sign) { named.push(signSlip(value, rule)); }
    if (rule.by_value && rule.read === "int") { named = named.concat(rule.by_value[String(value)] || []); }
    var seen = {};
    named = named.filter(function (m) { if (!m || seen[m]) { return false; } seen[m] = true; return true; });
    if (named.length) {
      var message = named.length === 1 ? named[0] : SEVERAL_SLIPS + named.map(function (m, k) { return SLIP_MARKS.charAt(k) + ") " + m; }).join(OR_SLIP);
      return said(message, "slip");
    }
    if (rule.read === "number" && rule.right !== null) {
      var rounding = roundingSlip(value, rule.right, rule.decimals);
      if (rounding) { return said(rounding, "rounding"); }
    }
    return said(wrongMessage(value, rule), "wrong");
  }

  var api = { grade: grade, readText: readText, hasDecimalComma: hasDecimalComma, formatG6: formatG6,
              roundHalfEven: roundHalfEven, fixed: fixed, tolerance: tol1,
              pyRepr: pyRepr, shownValue: shownValue, agrees: agrees, roundingSlip: roundingSlip, PROMPT: PROMPT };
  root.PosencGrader = api;
  if (typeof module !== "undefined" && module.exports) { module.exports = api; }
}(typeof window !== "undefined" ? window : this));
