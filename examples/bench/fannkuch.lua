-- Fannkuch-redux: the twin of fannkuch.cove.
local n = tonumber(arg and arg[1]) or 9

local perm, perm1, count = {}, {}, {}
for i = 0, n - 1 do
  perm[i] = 0
  perm1[i] = i
  count[i] = 0
end
local max_flips, checksum, perm_count = 0, 0, 0
local r = n
local done = false
while not done do
  while r ~= 1 do
    count[r - 1] = r
    r = r - 1
  end
  for i = 0, n - 1 do
    perm[i] = perm1[i]
  end
  local flips = 0
  local k = perm[0]
  while k ~= 0 do
    local i, j = 0, k
    while i < j do
      local t = perm[i]
      perm[i] = perm[j]
      perm[j] = t
      i = i + 1
      j = j - 1
    end
    flips = flips + 1
    k = perm[0]
  end
  if flips > max_flips then
    max_flips = flips
  end
  if perm_count % 2 == 0 then
    checksum = checksum + flips
  else
    checksum = checksum - flips
  end
  local next = false
  while not next and not done do
    if r == n then
      done = true
    else
      local perm0 = perm1[0]
      for i = 0, r - 1 do
        perm1[i] = perm1[i + 1]
      end
      perm1[r] = perm0
      count[r] = count[r] - 1
      if count[r] > 0 then
        next = true
      else
        r = r + 1
      end
    end
  end
  perm_count = perm_count + 1
end
print(checksum)
print("Pfannkuchen(" .. n .. ") = " .. max_flips)
