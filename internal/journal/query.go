package journal

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// coredumpMessageID is the MESSAGE_ID that systemd-coredump gives its entries.
const coredumpMessageID = "fc2e22bc6ee647b6b90729ab34a250b1"

// unitFields are the fields whose values name units; a unit pattern is
// expanded against the values they take in the journal, as journalctl does.
var unitFields = []string{"_SYSTEMD_UNIT", "COREDUMP_UNIT", "UNIT", "OBJECT_SYSTEMD_UNIT", "_SYSTEMD_SLICE"}

// unitSuffixes are the unit types systemd knows.
var unitSuffixes = []string{
	".service", ".socket", ".target", ".device", ".mount", ".automount",
	".swap", ".timer", ".path", ".slice", ".scope",
}

// match is one FIELD=value condition.
type match struct {
	field, value string
}

// String returns the FIELD=value form used by journalctl and libsystemd.
func (m match) String() string { return m.field + "=" + m.value }

// plan is a Query turned into journal matches plus the same selection as a
// predicate. Matches in a group are ANDed, except that matches on the same
// field are ORed; groups are ORed. An empty groups list reads everything.
type plan struct {
	groups  [][]match
	units   map[string]bool // concrete unit names, after pattern expansion
	byUnit  bool            // Query.Units was given
	kernel  bool
	bootID  string
	since   time.Time
	noMatch bool // Query.Units was given but no unit in the journal fits it
}

// uniqueValuesFunc lists the values a field takes anywhere in the journal.
type uniqueValuesFunc func(field string) ([]string, error)

// newPlan checks q and turns it into a plan, using values to expand unit
// patterns. values is called only when q.Units holds a pattern.
func newPlan(q Query, values uniqueValuesFunc) (*plan, error) {
	bootID, err := normalizeBootID(q.Boot)
	if err != nil {
		return nil, err
	}
	p := &plan{kernel: q.Kernel, bootID: bootID, since: q.Since, byUnit: len(q.Units) > 0}
	if p.byUnit {
		p.units, err = expandUnits(q.Units, values)
		if err != nil {
			return nil, err
		}
		p.noMatch = len(p.units) == 0
	}
	p.groups = p.buildGroups()
	return p, nil
}

// normalizeBootID accepts a boot id with or without dashes, in any case.
func normalizeBootID(id string) (string, error) {
	if id == "" {
		return "", nil
	}
	clean := strings.ToLower(strings.ReplaceAll(id, "-", ""))
	if len(clean) != 32 || strings.Trim(clean, "0123456789abcdef") != "" {
		return "", fmt.Errorf("journal: boot id %q is not 32 hex digits: %w", id, ErrInvalidQuery)
	}
	return clean, nil
}

// unitPattern turns a unit name as a person writes it into what it matches:
// a pattern stays as it is, a name without a unit suffix gets ".service".
func unitPattern(name string) string {
	name = strings.TrimSpace(name)
	if isGlob(name) {
		return name
	}
	for _, suffix := range unitSuffixes {
		if strings.HasSuffix(name, suffix) && len(name) > len(suffix) {
			return name
		}
	}
	return name + ".service"
}

// isGlob tells whether a unit name is a shell pattern.
func isGlob(name string) bool {
	return strings.ContainsAny(name, "*?[")
}

// globMatches reports whether name fits the shell pattern. Backslashes are
// plain characters, as in unit names such as "dev-disk-by\x2duuid.device".
func globMatches(pattern, name string) bool {
	ok, err := path.Match(strings.ReplaceAll(pattern, `\`, `\\`), name)
	return err == nil && ok
}

// expandUnits returns the concrete unit names that names select: plain names
// as they are, patterns replaced by the unit names in the journal that fit.
func expandUnits(names []string, values uniqueValuesFunc) (map[string]bool, error) {
	units := map[string]bool{}
	var patterns []string
	for _, name := range names {
		pattern := unitPattern(name)
		if pattern == ".service" {
			return nil, fmt.Errorf("journal: empty unit name: %w", ErrInvalidQuery)
		}
		if isGlob(pattern) {
			if _, err := path.Match(pattern, ""); err != nil {
				return nil, fmt.Errorf("journal: unit pattern %q: %w: %w", name, ErrInvalidQuery, err)
			}
			patterns = append(patterns, pattern)
			continue
		}
		units[pattern] = true
	}
	if len(patterns) == 0 {
		return units, nil
	}
	for _, field := range unitFields {
		known, err := values(field)
		if err != nil {
			return nil, fmt.Errorf("journal: listing %s values: %w", field, err)
		}
		for _, unit := range known {
			if unit != "" && slices.ContainsFunc(patterns, func(p string) bool { return globMatches(p, unit) }) {
				units[unit] = true
			}
		}
	}
	return units, nil
}

// buildGroups writes the plan as OR-ed groups of matches, the unit selection
// of `journalctl -u` combined with the boot and kernel conditions.
func (p *plan) buildGroups() [][]match {
	var common []match
	if p.bootID != "" {
		common = append(common, match{"_BOOT_ID", p.bootID})
	}
	if p.kernel {
		common = append(common, match{"_TRANSPORT", "kernel"})
	}
	if !p.byUnit || p.noMatch {
		if len(common) == 0 {
			return nil
		}
		return [][]match{common}
	}
	units := p.sortedUnits()
	var sliceUnits []string
	for _, u := range units {
		if strings.HasSuffix(u, ".slice") {
			sliceUnits = append(sliceUnits, u)
		}
	}
	groups := [][]match{
		withValues(nil, "_SYSTEMD_UNIT", units),
		withValues([]match{{"MESSAGE_ID", coredumpMessageID}, {"_UID", "0"}}, "COREDUMP_UNIT", units),
		withValues([]match{{"_PID", "1"}}, "UNIT", units),
		withValues([]match{{"_UID", "0"}}, "OBJECT_SYSTEMD_UNIT", units),
	}
	if len(sliceUnits) > 0 {
		groups = append(groups, withValues(nil, "_SYSTEMD_SLICE", sliceUnits))
	}
	for i := range groups {
		groups[i] = append(groups[i], common...)
	}
	return groups
}

// withValues appends one match per value of field to base.
func withValues(base []match, field string, values []string) []match {
	group := slices.Clone(base)
	for _, v := range values {
		group = append(group, match{field, v})
	}
	return group
}

// sortedUnits returns the concrete unit names in a stable order.
func (p *plan) sortedUnits() []string {
	units := make([]string, 0, len(p.units))
	for u := range p.units {
		units = append(units, u)
	}
	slices.Sort(units)
	return units
}

// accepts applies the whole query to one record. Both readers call it after
// the journal matches, so that they agree exactly and so that the Since bound
// holds even where the journal interleaves files out of time order.
func (p *plan) accepts(r *record) bool {
	if p.noMatch {
		return false
	}
	if p.bootID != "" && r.BootID != p.bootID {
		return false
	}
	if p.kernel && r.Transport != "kernel" {
		return false
	}
	if !p.since.IsZero() && r.Time.Before(p.since) {
		return false
	}
	return !p.byUnit || p.acceptsUnit(r)
}

// acceptsUnit is the `journalctl -u` selection for one record.
func (p *plan) acceptsUnit(r *record) bool {
	switch {
	case p.units[r.Unit]:
		return true
	case r.messageID == coredumpMessageID && r.uid == "0" && p.units[r.coredumpUnit]:
		return true
	case r.pid == "1" && p.units[r.aboutUnit]:
		return true
	case r.uid == "0" && p.units[r.objectUnit]:
		return true
	case strings.HasSuffix(r.slice, ".slice") && p.units[r.slice]:
		return true
	}
	return false
}

// sinceMicros is the Since bound in microseconds since the epoch, rounded up
// so that a seek never skips an entry the predicate keeps.
func (p *plan) sinceMicros() int64 {
	micros := p.since.UnixMicro()
	if p.since.Sub(time.UnixMicro(micros)) > 0 {
		micros++
	}
	return micros
}
