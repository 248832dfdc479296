package redact

import "bytes"

// keywordSet finds which of a set of lower-case literals occur in a text in
// one pass: a table indexed by two bytes lists the literals that start with
// them, so most positions cost one lookup.
type keywordSet struct {
	words  [][]byte
	start  [1 << 16]uint16 // two-byte prefix -> 1 + index into groups; 0 none
	groups [][]int
	short  []int // literals shorter than two bytes, checked with bytes.Contains
}

// add registers word (lower case) and returns its index.
func (k *keywordSet) add(word string) int {
	for i, w := range k.words {
		if string(w) == word {
			return i
		}
	}
	idx := len(k.words)
	k.words = append(k.words, []byte(word))
	if len(word) < 2 {
		k.short = append(k.short, idx)
		return idx
	}
	key := uint16(word[0])<<8 | uint16(word[1])
	if k.start[key] == 0 {
		k.groups = append(k.groups, nil)
		k.start[key] = uint16(len(k.groups))
	}
	g := k.start[key] - 1
	k.groups[g] = append(k.groups[g], idx)
	return idx
}

// find sets present[i] for every literal i that occurs in lower.
func (k *keywordSet) find(lower []byte, present []bool) {
	clear(present)
	for i := 0; i+1 < len(lower); i++ {
		g := k.start[uint16(lower[i])<<8|uint16(lower[i+1])]
		if g == 0 {
			continue
		}
		for _, w := range k.groups[g-1] {
			if !present[w] && bytes.HasPrefix(lower[i:], k.words[w]) {
				present[w] = true
			}
		}
	}
	for _, w := range k.short {
		present[w] = bytes.Contains(lower, k.words[w])
	}
}
