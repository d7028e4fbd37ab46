-- Integer and float arithmetic in a tight loop: the twin of arith.cove
-- (`i >> 2` is `math.floor(i / 4)` here, the same for i >= 0, so that
-- LuaJIT, which has no `>>`, runs it too).
local total = 0
local x = 1.5
local n = tonumber(arg and arg[1]) or 3000000
for i = 0, n - 1 do
  total = (total + i * 3 - math.floor(i / 4)) % 1000003
  x = x * 0.999 + 0.5
end
print(total .. " " .. math.floor(x))
