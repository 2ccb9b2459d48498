package present

import "strconv"

// NameRange is the separator of a range of numbered names in a compact
// list: "x0…x999999" stands for x0, x1, …, x999999. No latent name holds
// it (names are identifiers), so a range is never mistaken for a name.
const NameRange = "…"

// minRun is the shortest run of numbered names CompactNames writes as a
// range.
const minRun = 3

// CompactNames writes a list of latent names with every run of at least
// minRun consecutively numbered names of one prefix (x3, x4, x5: the
// prefix ends in a non-digit, the numbers have no leading zeros and rise
// by one) as the range "x3…x5", keeping the order: a libDAI file's 10⁶
// latents x0 … x999999 are one entry.
func CompactNames(names []string) []string {
	var out []string
	for i := 0; i < len(names); {
		prefix, first, ok := numbered(names[i])
		j := i + 1
		for ok && j < len(names) {
			p, n, ok2 := numbered(names[j])
			if !ok2 || p != prefix || n != first+uint64(j-i) {
				break
			}
			j++
		}
		if j-i >= minRun {
			out = append(out, names[i]+NameRange+names[j-1])
		} else {
			out = append(out, names[i:j]...)
		}
		i = j
	}
	return out
}

// numbered splits a name into a prefix ending in a non-digit and a
// trailing decimal number without leading zeros.
func numbered(name string) (prefix string, n uint64, ok bool) {
	k := len(name)
	for k > 0 && name[k-1] >= '0' && name[k-1] <= '9' {
		k--
	}
	digits := name[k:]
	if k == 0 || digits == "" || (digits[0] == '0' && len(digits) > 1) || len(digits) > 18 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return name[:k], n, err == nil
}
