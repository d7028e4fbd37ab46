-- Nsieve-bits: the twin of nsieve_bits.cove. It uses Lua 5.4's integer bit
-- operators, so LuaJIT (whose bit operations are the `bit` library's
-- functions) does not run it and `cargo xtask bench-peers` leaves it out of
-- LuaJIT's column.
local m = tonumber(arg and arg[1]) or 2000000

local function nsieve(m)
  local bits = {}
  for i = 0, m >> 5 do
    bits[i] = -1
  end
  local count = 0
  local i = 2
  while i <= m do
    if (bits[i >> 5] >> (i & 31)) & 1 ~= 0 then
      count = count + 1
      local j = i + i
      while j <= m do
        local w = j >> 5
        bits[w] = bits[w] & (-1 ~ (1 << (j & 31)))
        j = j + i
      end
    end
    i = i + 1
  end
  return count
end

for k = 0, 2 do
  local n = m >> k
  print(string.format("Primes up to %d %d", n, nsieve(n)))
end
