-- Collatz: the twin of collatz.cove.
local n = tonumber(arg and arg[1]) or 200000

local function chain(start)
  local x = start
  local steps = 1
  while x ~= 1 do
    if x % 2 == 0 then
      x = math.floor(x / 2)
    else
      x = 3 * x + 1
    end
    steps = steps + 1
  end
  return steps
end

local best, best_len, total = 1, 1, 0
for i = 1, n - 1 do
  local len = chain(i)
  if len > best_len then
    best = i
    best_len = len
  end
  total = (total + len) % 1000000007
end
print(best .. " " .. best_len .. " " .. total)
