-- String building: interpolation, a list of pieces, one join.
local parts = {}
local total = 0
for i = 0, 300000 - 1 do
  local piece = "item-" .. i
  total = total + #piece
  parts[#parts + 1] = piece
end
local joined = table.concat(parts, ",")
print(total)
print(#joined)
