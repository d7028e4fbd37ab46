-- Linked lists: the twin of linked_list.cove (a list is nil or a table
-- with a value and the rest).
local rounds = tonumber(arg and arg[1]) or 300

local function make_list(length)
  if length == 0 then
    return nil
  end
  return { value = length, next = make_list(length - 1) }
end

local function length(list)
  local n = 0
  while list do
    n = n + 1
    list = list.next
  end
  return n
end

local function is_shorter(x, y)
  local xs, ys = x, y
  while ys do
    if not xs then
      return true
    end
    xs = xs.next
    ys = ys.next
  end
  return false
end

local function tail(x, y, z)
  if is_shorter(y, x) then
    return tail(tail(x.next, y, z), tail(y.next, z, x), tail(z.next, x, y))
  end
  return z
end

local total = 0
for _ = 1, rounds do
  total = total + length(tail(make_list(15), make_list(10), make_list(6)))
end
print(total)
