-- Ackermann's function: the twin of ackermann.cove.
local n = tonumber(arg and arg[1]) or 9

local function ack(m, n)
  if m == 0 then
    return n + 1
  elseif n == 0 then
    return ack(m - 1, 1)
  else
    return ack(m - 1, ack(m, n - 1))
  end
end

local deep = ack(3, n)
local wide = ack(2, 250 * n)
print(deep .. " " .. wide)
