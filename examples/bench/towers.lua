-- The towers of Hanoi, the piles as tables used as stacks: the twin of
-- towers.cove.
local rounds = tonumber(arg and arg[1]) or 300

local function push_disk(piles, pile, disk)
  local p = piles[pile]
  assert(#p == 0 or p[#p] > disk)
  p[#p + 1] = disk
end

local function pop_disk(piles, pile)
  local p = piles[pile]
  local disk = p[#p]
  p[#p] = nil
  return disk
end

local function move_top(piles, from, to)
  push_disk(piles, to, pop_disk(piles, from))
  return 1
end

local function move_disks(piles, disks, from, to)
  if disks == 1 then
    return move_top(piles, from, to)
  end
  local other = 3 - from - to
  local moves = move_disks(piles, disks - 1, from, other)
  moves = moves + move_top(piles, from, to)
  return moves + move_disks(piles, disks - 1, other, to)
end

local total = 0
for _ = 1, rounds do
  local piles = {}
  for i = 0, 2 do piles[i] = {} end
  for disk = 12, 0, -1 do push_disk(piles, 0, disk) end
  total = total + move_disks(piles, 13, 0, 1)
end
print(total)
