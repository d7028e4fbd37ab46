-- The twin of formatting.cove: string.format with the same specs.
local n = tonumber(arg[1]) or 300000
local total, h = 0, 0
for i = 0, n - 1 do
  local x = i / 7.0
  local line = string.format("%8d %.3f %x", i, x, i)
  total = total + #line
  h = (h * 31 + string.byte(line, #line)) % 1000000007
end
print(total .. " " .. h)
