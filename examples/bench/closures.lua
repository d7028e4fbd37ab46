-- Closures: the twin of closures.cove (map, filter and fold written out,
-- as Lua has none).
local n = tonumber(arg and arg[1]) or 1000000
local function compose(f, g) return function(x) return g(f(x)) end end
local function adder(k) return function(x) return x + k end end
local total = 0
local count = function(x) total = total + x % 1000 end
local h = compose(adder(3), function(x) return x * 2 end)
for i = 0, n - 1 do count(h(i)) end
local xs = {}
for i = 1, 1000 do xs[i] = i - 1 end
local function map(t, f) local r = {} for i = 1, #t do r[i] = f(t[i]) end return r end
local function filter(t, p) local r = {} for i = 1, #t do if p(t[i]) then r[#r + 1] = t[i] end end return r end
local function fold(t, a, f) for i = 1, #t do a = f(a, t[i]) end return a end
local sum = 0
for r = 1, math.floor(n / 1000) do
  sum = sum + fold(filter(map(xs, function(x) return x * 3 end), function(x) return x % 2 == 0 end), 0, function(a, x) return a + x end)
end
print(total .. " " .. sum)
