-- Sieve of Eratosthenes: the twin of sieve.cove.
local n = tonumber(arg and arg[1]) or 2000000

local function sieve(n)
  local flags = {}
  for i = 0, n do
    flags[i] = true
  end
  local count = 0
  local i = 2
  while i <= n do
    if flags[i] then
      count = count + 1
      local j = i * i
      while j <= n do
        flags[j] = false
        j = j + i
      end
    end
    i = i + 1
  end
  return count
end

local total = 0
for round = 1, 5 do
  total = total + sieve(n)
end
print(total)
