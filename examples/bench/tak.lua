-- Takeuchi's function: the twin of tak.cove.
local rounds = tonumber(arg and arg[1]) or 100

local function tak(x, y, z)
  if y < x then
    return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
  end
  return z
end

local function tak_counted(x, y, z, c)
  c.calls = c.calls + 1
  if y < x then
    return tak_counted(tak_counted(x - 1, y, z, c), tak_counted(y - 1, z, x, c), tak_counted(z - 1, x, y, c), c)
  end
  return z
end

local total = 0
for r = 0, rounds - 1 do
  total = total + tak(18 + 2 * (r % 3), 12, 6)
end
local c = { calls = 0 }
total = total + tak_counted(18, 12, 6, c)
print(total .. " " .. c.calls)
