// Blurhash decoding (https://blurha.sh): the placeholder folio stores for
// each image, drawn while the thumbnail loads.

const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~";

function decode83(s) {
  let v = 0;
  for (const c of s) {
    const d = digits.indexOf(c);
    if (d < 0) throw new Error("blurhash: bad character");
    v = v * 83 + d;
  }
  return v;
}

function toLinear(v) {
  const x = v / 255;
  return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
}

function toSRGB(v) {
  const x = Math.max(0, Math.min(1, v));
  return x <= 0.0031308 ? Math.round(x * 12.92 * 255 + 0.5) : Math.round((1.055 * Math.pow(x, 1 / 2.4) - 0.055) * 255 + 0.5);
}

function signPow(v, e) {
  return Math.sign(v) * Math.pow(Math.abs(v), e);
}

// decode returns the RGBA pixels (width × height) of a blurhash, or throws
// on a malformed one.
export function decode(hash, width, height, punch = 1) {
  if (typeof hash !== "string" || hash.length < 6) throw new Error("blurhash: too short");
  const flag = decode83(hash[0]);
  const ny = Math.floor(flag / 9) + 1;
  const nx = (flag % 9) + 1;
  if (hash.length !== 4 + 2 * nx * ny) throw new Error("blurhash: wrong length");
  const max = (decode83(hash[1]) + 1) / 166;
  const colors = [];
  const dc = decode83(hash.substring(2, 6));
  colors.push([toLinear(dc >> 16), toLinear((dc >> 8) & 255), toLinear(dc & 255)]);
  for (let i = 1; i < nx * ny; i++) {
    const v = decode83(hash.substring(4 + i * 2, 6 + i * 2));
    const r = Math.floor(v / (19 * 19)), g = Math.floor(v / 19) % 19, b = v % 19;
    colors.push([
      signPow((r - 9) / 9, 2) * max * punch,
      signPow((g - 9) / 9, 2) * max * punch,
      signPow((b - 9) / 9, 2) * max * punch,
    ]);
  }
  const px = new Uint8ClampedArray(width * height * 4);
  const cosX = new Float64Array(width * nx);
  for (let x = 0; x < width; x++) for (let i = 0; i < nx; i++) cosX[x * nx + i] = Math.cos((Math.PI * x * i) / width);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0;
      for (let j = 0; j < ny; j++) {
        const cy = Math.cos((Math.PI * y * j) / height);
        for (let i = 0; i < nx; i++) {
          const basis = cosX[x * nx + i] * cy;
          const c = colors[i + j * nx];
          r += c[0] * basis;
          g += c[1] * basis;
          b += c[2] * basis;
        }
      }
      const o = 4 * (x + y * width);
      px[o] = toSRGB(r);
      px[o + 1] = toSRGB(g);
      px[o + 2] = toSRGB(b);
      px[o + 3] = 255;
    }
  }
  return px;
}

// paint draws a blurhash on a canvas (its own small width and height; CSS
// scales it up). It returns false when the hash does not decode.
export function paint(canvas, hash) {
  try {
    const px = decode(hash, canvas.width, canvas.height);
    const ctx = canvas.getContext("2d");
    const img = ctx.createImageData(canvas.width, canvas.height);
    img.data.set(px);
    ctx.putImageData(img, 0, 0);
    return true;
  } catch {
    return false;
  }
}
