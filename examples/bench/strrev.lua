-- Strings a character at a time: the twin of strrev.cove, written as Lua
-- does it (s:reverse(), s:byte(i), s:find(t, 1, true), s:upper()).
local n = tonumber(arg and arg[1]) or 200000

local last = 42
local function rand(k)
  last = (last * 3877 + 29573) % 139968
  return math.floor(last * k / 139968)
end

local function make_word()
  local length = 3 + rand(8)
  local w = ""
  for _ = 1, length do
    w = w .. string.char(97 + rand(6))
  end
  return w
end

local function vowels(s)
  local count = 0
  for i = 1, #s do
    local b = s:byte(i)
    if b == 97 or b == 101 or b == 105 or b == 111 or b == 117 then
      count = count + 1
    end
  end
  return count
end

local previous = ""
local vowel_count, palindromes, ascending, with_ab, ab_at, hash, upper_bytes = 0, 0, 0, 0, 0, 0, 0
for _ = 1, n do
  local w = make_word()
  local r = w:reverse()
  vowel_count = vowel_count + vowels(w)
  if r == w then palindromes = palindromes + 1 end
  if previous < w then ascending = ascending + 1 end
  if w:find("ab", 1, true) then with_ab = with_ab + 1 end
  local at = r:find("ba", 1, true)
  if at then ab_at = ab_at + at end
  local up = (r .. previous):upper()
  upper_bytes = upper_bytes + up:byte(math.floor(#up / 2) + 1)
  for i = 1, #r do
    hash = (hash * 131 + r:byte(i)) % 1000000007
  end
  previous = w
end
print(vowel_count .. " " .. palindromes .. " " .. ascending .. " " .. with_ab .. " " .. ab_at .. " " .. upper_bytes .. " " .. hash)
