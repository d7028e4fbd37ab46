-- Higher-order functions: the twin of higher_order.cove.
local n = tonumber(arg and arg[1]) or 20000
local function fold_range(m, init, f)
  local acc = init
  for i = 0, m - 1 do acc = f(acc, i) end
  return acc
end
local function twice(f) return function(x) return f(f(x)) end end
local function make_counter()
  local c = 0
  return function() c = c + 1; return c end
end
local inc = function(x) return x + 1 end
local add4 = twice(twice(inc))
local s = 0
for r = 0, 39 do
  s = s + fold_range(n, r, function(acc, i) return (acc + add4(i)) % 1000003 end)
end
local nxt = make_counter()
local t = 0
for _ = 1, 15 * n do t = t + nxt() % 7 end
print(s .. " " .. t)
