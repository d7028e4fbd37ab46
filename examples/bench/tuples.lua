-- Functions that return several values, taken where they are called: the
-- twin of tuples.cove.
local n = tonumber(arg and arg[1]) or 1000000

local floor = math.floor
local function divmod(a, b) return floor(a / b), a % b end

local function min_max(xs)
  local lo, hi = xs[1], xs[1]
  for i = 1, #xs do
    local x = xs[i]
    if x < lo then lo = x end
    if x > hi then hi = x end
  end
  return lo, hi
end

local function fib_pair(k)
  if k == 0 then return 0, 1 end
  local a, b = fib_pair(k - 1)
  return b, (a + b) % 1000000007
end

local function word(words, i)
  local w = words[i % #words + 1]
  return w, #w
end

local divisions = 0
for i = 1, n - 1 do
  local q, r = divmod(i * 7, 13)
  divisions = (divisions + q - r) % 1000000007
end
local xs = {}
for i = 0, 999 do xs[#xs + 1] = i * 7919 % 1009 end
local spans = 0
for _ = 1, floor(n / 2000) do
  local lo, hi = min_max(xs)
  spans = spans + hi - lo
end
local fibs = 0
for k = 0, floor(n / 100) - 1 do
  local a, b = fib_pair(k % 60)
  fibs = (fibs + a + b) % 1000000007
end
local words = {"tuple", "pair", "quotient", "remainder", "fields"}
local letters = 0
for i = 0, floor(n / 4) - 1 do
  local w, length = word(words, i)
  letters = letters + length + string.byte(w, 1) % 7
end
print(divisions .. " " .. spans .. " " .. fibs .. " " .. letters)
