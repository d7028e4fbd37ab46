-- String building: interpolation, a list of pieces, one join.
local parts = {}
local total = 0
local n = tonumber(arg and arg[1]) or 300000
for i = 0, n - 1 do
  local piece = "item-" .. i
  total = total + #piece
  parts[#parts + 1] = piece
end
local joined = table.concat(parts, ",")
print(total)
print(#joined)
