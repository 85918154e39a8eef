// QR codes (ISO/IEC 18004) for the dashboard's recovery links, drawn here as SVG: the link never leaves the page for a
// third-party service. Byte mode, error correction level M, versions 1 to 15 (up to 412 bytes at level M; a link is
// about 100), the mask with the lowest penalty unless one is asked for.
"use strict";

const QRCode = (() => {
  // Level M, per version: error-correction codewords per block, then [blocks, data codewords] groups.
  const blocksM = [null,
    [10, [1, 16]], [16, [1, 28]], [26, [1, 44]], [18, [2, 32]], [24, [2, 43]], [16, [4, 27]], [18, [4, 31]],
    [22, [2, 38], [2, 39]], [22, [3, 36], [2, 37]], [26, [4, 43], [1, 44]], [30, [1, 50], [4, 51]],
    [22, [6, 36], [2, 37]], [22, [8, 37], [1, 38]], [24, [4, 40], [5, 41]], [24, [5, 41], [5, 42]]];
  const alignment = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46],
    [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62], [6, 26, 46, 66], [6, 26, 48, 70]];

  // GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1.
  const exp = new Array(512), log = new Array(256);
  for (let i = 0, x = 1; i < 255; i++, x = (x << 1) ^ (x & 0x80 ? 0x11d : 0)) { exp[i] = x; log[x] = i; }
  for (let i = 255; i < 512; i++) exp[i] = exp[i - 255];
  const multiply = (a, b) => (a && b ? exp[log[a] + log[b]] : 0);

  function errorCorrection(data, count) {
    let generator = [1];
    for (let i = 0; i < count; i++) {
      const next = new Array(generator.length + 1).fill(0);
      generator.forEach((g, j) => { next[j] ^= g; next[j + 1] ^= multiply(g, exp[i]); });
      generator = next;
    }
    const remainder = data.concat(new Array(count).fill(0));
    for (let i = 0; i < data.length; i++) {
      const factor = remainder[i];
      if (factor) generator.forEach((g, j) => { remainder[i + j] ^= multiply(g, factor); });
    }
    return remainder.slice(data.length);
  }

  const dataCapacity = (version) => blocksM[version].slice(1).reduce((sum, [blocks, size]) => sum + blocks * size, 0);

  // The bit stream: byte mode, the length, the bytes, a terminator, padding; then blocks with their error correction,
  // interleaved.
  function codewords(bytes, version) {
    const bits = [];
    const put = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
    put(0b0100, 4);
    put(bytes.length, version < 10 ? 8 : 16);
    bytes.forEach((b) => put(b, 8));
    const capacity = dataCapacity(version) * 8;
    put(0, Math.min(4, capacity - bits.length));
    while (bits.length % 8) bits.push(0);
    const data = [];
    for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((v, b) => (v << 1) | b, 0));
    for (let pad = 0xec; data.length < capacity / 8; pad ^= 0xec ^ 0x11) data.push(pad);
    const [ecCount, ...groups] = blocksM[version];
    const blocks = [];
    let offset = 0;
    for (const [count, size] of groups) {
      for (let i = 0; i < count; i++, offset += size) {
        const block = data.slice(offset, offset + size);
        blocks.push({ data: block, ec: errorCorrection(block, ecCount) });
      }
    }
    const result = [];
    const longest = Math.max(...blocks.map((b) => b.data.length));
    for (let i = 0; i < longest; i++) blocks.forEach((b) => { if (i < b.data.length) result.push(b.data[i]); });
    for (let i = 0; i < ecCount; i++) blocks.forEach((b) => result.push(b.ec[i]));
    return result;
  }

  // BCH codes of the format (15,5) and version (18,6) information.
  function bch(value, generator, shift) {
    let remainder = value << shift;
    const degree = (n) => 31 - Math.clz32(n);
    while (remainder && degree(remainder) >= degree(generator)) remainder ^= generator << (degree(remainder) - degree(generator));
    return (value << shift) | remainder;
  }

  const masks = [
    (r, c) => (r + c) % 2 === 0, (r) => r % 2 === 0, (r, c) => c % 3 === 0, (r, c) => (r + c) % 3 === 0,
    (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0, (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
    (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0, (r, c) => (((r + c) % 2) + ((r * c) % 3)) % 2 === 0,
  ];

  function matrix(version, words, mask) {
    const size = version * 4 + 17;
    const modules = Array.from({ length: size }, () => new Array(size).fill(false));
    const reserved = Array.from({ length: size }, () => new Array(size).fill(false));
    const set = (r, c, dark) => { modules[r][c] = dark; reserved[r][c] = true; };
    // Finder patterns with their separators.
    for (const [row, col] of [[0, 0], [0, size - 7], [size - 7, 0]]) {
      for (let r = -1; r <= 7; r++) {
        for (let c = -1; c <= 7; c++) {
          const rr = row + r, cc = col + c;
          if (rr < 0 || rr >= size || cc < 0 || cc >= size) continue;
          const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
          set(rr, cc, ring !== 2 && ring !== 4);
        }
      }
    }
    // Alignment patterns, except where they would overlap a finder pattern.
    const centres = alignment[version];
    for (const r of centres) {
      for (const c of centres) {
        if (reserved[r][c]) continue;
        for (let dr = -2; dr <= 2; dr++) for (let dc = -2; dc <= 2; dc++) set(r + dr, c + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1);
      }
    }
    // Timing patterns.
    for (let i = 8; i < size - 8; i++) { set(6, i, i % 2 === 0); set(i, 6, i % 2 === 0); }
    // Format information (level M is 00), around the finders, and the dark module.
    const format = bch((0b00 << 3) | mask, 0x537, 10) ^ 0x5412;
    for (let i = 0; i < 15; i++) {
      const dark = ((format >>> i) & 1) === 1;
      if (i < 6) set(i, 8, dark); else if (i < 8) set(i + 1, 8, dark); else set(size - 15 + i, 8, dark);
      if (i < 8) set(8, size - 1 - i, dark); else if (i < 9) set(8, 15 - i, dark); else set(8, 14 - i, dark);
    }
    set(size - 8, 8, true);
    // Version information, from version 7.
    if (version >= 7) {
      const info = bch(version, 0x1f25, 12);
      for (let i = 0; i < 18; i++) {
        const dark = ((info >>> i) & 1) === 1;
        const a = Math.floor(i / 3), b = (i % 3) + size - 11;
        set(a, b, dark);
        set(b, a, dark);
      }
    }
    // The data, in two-module columns from the bottom right, up and down in turn, past the vertical timing pattern.
    let bit = 0;
    const total = words.length * 8;
    for (let right = size - 1, upward = true; right > 0; right -= 2, upward = !upward) {
      if (right === 6) right = 5;
      for (let step = 0; step < size; step++) {
        const r = upward ? size - 1 - step : step;
        for (const c of [right, right - 1]) {
          if (reserved[r][c]) continue;
          const dark = bit < total && ((words[bit >>> 3] >>> (7 - (bit & 7))) & 1) === 1;
          bit++;
          modules[r][c] = dark !== masks[mask](r, c);
        }
      }
    }
    return modules;
  }

  // The four penalty rules that choose the mask.
  function penalty(m) {
    const size = m.length;
    let score = 0;
    const lines = [];
    for (let i = 0; i < size; i++) { lines.push(m[i]); lines.push(m.map((row) => row[i])); }
    for (const line of lines) {
      for (let i = 0, run = 1; i < size; i++) {
        if (i + 1 < size && line[i + 1] === line[i]) { run++; continue; }
        if (run >= 5) score += run - 2;
        run = 1;
      }
      const pattern = [true, false, true, true, true, false, true];
      for (let i = 0; i + 7 <= size; i++) {
        if (!pattern.every((p, k) => line[i + k] === p)) continue;
        // Four light modules on either side; past the edge is the light quiet zone.
        const before = [1, 2, 3, 4].every((k) => i - k < 0 || !line[i - k]);
        const after = [7, 8, 9, 10].every((k) => i + k >= size || !line[i + k]);
        if (before || after) score += 40;
      }
    }
    let dark = 0;
    for (let r = 0; r < size; r++) {
      for (let c = 0; c < size; c++) {
        if (m[r][c]) dark++;
        if (r + 1 < size && c + 1 < size && m[r][c] === m[r][c + 1] && m[r][c] === m[r + 1][c] && m[r][c] === m[r + 1][c + 1]) score += 3;
      }
    }
    return score + Math.floor(Math.abs((dark * 20) / (size * size) - 10)) * 10;
  }

  // The modules (true: dark) of `text` as UTF-8, in the smallest version that holds it.
  function encode(text, options = {}) {
    const bytes = Array.from(new TextEncoder().encode(text));
    let version = 1;
    while (version <= 15 && 4 + (version < 10 ? 8 : 16) + bytes.length * 8 > dataCapacity(version) * 8) version++;
    if (version > 15) throw new RangeError("too long for a QR code of version 15 at level M");
    const words = codewords(bytes, version);
    if (options.mask !== undefined) return matrix(version, words, options.mask);
    let best = null;
    for (let mask = 0; mask < 8; mask++) {
      const m = matrix(version, words, mask);
      const score = penalty(m);
      if (!best || score < best.score) best = { m, score };
    }
    return best.m;
  }

  // An SVG element of the code, with the quiet zone of four modules around it.
  function svg(text, scale = 4) {
    const m = encode(text);
    const size = m.length + 8;
    const namespace = "http://www.w3.org/2000/svg";
    const root = document.createElementNS(namespace, "svg");
    root.setAttribute("viewBox", `0 0 ${size} ${size}`);
    root.setAttribute("width", String(size * scale));
    root.setAttribute("height", String(size * scale));
    root.setAttribute("role", "img");
    const path = document.createElementNS(namespace, "path");
    let d = "";
    m.forEach((row, r) => row.forEach((dark, c) => { if (dark) d += `M${c + 4} ${r + 4}h1v1h-1z`; }));
    const background = document.createElementNS(namespace, "rect");
    background.setAttribute("width", String(size));
    background.setAttribute("height", String(size));
    background.setAttribute("fill", "#fff");
    path.setAttribute("d", d);
    path.setAttribute("fill", "#000");
    root.append(background, path);
    return root;
  }

  return { encode, svg };
})();
