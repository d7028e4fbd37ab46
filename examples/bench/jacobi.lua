-- Jacobi iteration on a flat grid: the twin of jacobi.cove (the grid a
-- table indexed from 0, as the Cove list is, since its index arithmetic is
-- part of the work).
local n = tonumber(arg and arg[1]) or 100

local function sweep(src, dst, n)
  for i = 1, n - 2 do
    local row = i * n
    for j = 1, n - 2 do
      local k = row + j
      dst[k] = 0.25 * (src[k - n] + src[k + n] + src[k - 1] + src[k + 1])
    end
  end
end

local function largest_change(a, b, count)
  local worst = 0.0
  for k = 0, count - 1 do
    local d = math.abs(a[k] - b[k])
    if d > worst then worst = d end
  end
  return worst
end

local a, b = {}, {}
for k = 0, n * n - 1 do
  a[k] = 0.0
  b[k] = 0.0
end
for j = 0, n - 1 do
  a[j] = 1.0
  b[j] = 1.0
end
local change = 0.0
for s = 0, 8 * n - 1 do
  sweep(a, b, n)
  if s % 10 == 9 then change = largest_change(a, b, n * n) end
  a, b = b, a
end
local sum = 0.0
for k = 0, n * n - 1 do sum = sum + a[k] end
local centre = a[math.floor(n / 2) * n + math.floor(n / 2)]
print(string.format("%.9f %.9f %.9f", sum, centre, change))
