-- The twin of rounding.cove; Lua has no round, so it is written out
-- (half away from zero, as Cove's).
local n = tonumber(arg[1]) or 1000000
local acc, k = 0.0, 0
local function round(x)
  if x >= 0 then return math.floor(x + 0.5) else return math.ceil(x - 0.5) end
end
for i = 1, n - 1 do
  local x = i + 0.0
  acc = acc + math.sqrt(x) / (x + 1.0) ^ 0.5 + math.floor(x / 3.0) - round(x / 3.0)
  if math.ceil(x * 0.37) % 2 == 0 then k = k + 1 end
end
print(string.format("%.4f %d", acc, k))
