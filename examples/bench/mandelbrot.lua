-- Mandelbrot: the twin of mandelbrot.cove.
local n = tonumber(arg and arg[1]) or 600

local bytes = {}
local inside = 0
for y = 0, n - 1 do
  local ci = 2.0 * y / n - 1.0
  local byte, bit = 0, 0
  for x = 0, n - 1 do
    local cr = 2.0 * x / n - 1.5
    local zr, zi = 0.0, 0.0
    local i = 0
    local escaped = false
    while i < 50 and not escaped do
      local tr = zr * zr - zi * zi + cr
      zi = 2.0 * zr * zi + ci
      zr = tr
      if zr * zr + zi * zi > 4.0 then
        escaped = true
      end
      i = i + 1
    end
    byte = byte * 2
    if not escaped then
      byte = byte + 1
      inside = inside + 1
    end
    bit = bit + 1
    if bit == 8 then
      bytes[#bytes + 1] = byte
      byte, bit = 0, 0
    end
  end
  if bit > 0 then
    bytes[#bytes + 1] = byte
  end
end
local checksum = 0
for _, b in ipairs(bytes) do
  checksum = (checksum * 31 + b) % 1000000007
end
print(inside)
print(checksum)
