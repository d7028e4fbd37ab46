-- String building and splitting: the twin of splitting.cove, splitting with
-- string.find (plain), as a Lua program splits on a separator.
local n = tonumber(arg and arg[1]) or 100000

local function split(s, sep)
  local parts = {}
  local start = 1
  local count = 0
  while true do
    local at = string.find(s, sep, start, true)
    count = count + 1
    if at == nil then
      parts[count] = string.sub(s, start)
      return parts, count
    end
    parts[count] = string.sub(s, start, at - 1)
    start = at + 1
  end
end

local lines = {}
local last = 42
for i = 0, n - 1 do
  last = (last * 3877 + 29573) % 139968
  lines[i + 1] = string.format("%d,%d,%d,%d,x%d", last % 1000, i, last, i * 7 % 13, last % 97)
end
local text = table.concat(lines, "\n")
local fields = 0
local sum = 0
local firsts = {}
local distinct = 0
local all, count = split(text, "\n")
for l = 1, count do
  local parts, m = split(all[l], ",")
  fields = fields + m
  for j = 1, 4 do
    sum = sum + tonumber(parts[j])
  end
  local c = firsts[parts[1]]
  if c == nil then
    distinct = distinct + 1
    c = 0
  end
  firsts[parts[1]] = c + 1
end
print(string.format("%d %d %d", fields, sum, distinct))
