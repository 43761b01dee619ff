package render

import (
	"fmt"
	"strings"
	"time"
)

// TimeLayout is how Time writes a moment: minutes, then the zone (ZoneName).
const TimeLayout = "2006-01-02 15:04"

// Time writes t in loc as "2006-01-02 15:04 <zone>", e.g. "2023-05-08 14:03
// UTC" or "2023-05-08 16:03 Europe/Paris". A nil loc means UTC.
func Time(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	return t.Format(TimeLayout) + " " + zoneAt(loc, t)
}

// ZoneName names loc for a record (memctx timeZone): "UTC", an IANA name such
// as "Europe/Paris", or the name given to a fixed zone. A nil loc is "UTC".
// ParseZone reads it back.
func ZoneName(loc *time.Location) string {
	if loc == nil {
		return "UTC"
	}
	if loc.String() == "" {
		return zoneAt(loc, time.Time{}) // a fixed zone without a name: its offset
	}
	return zoneAt(loc, time.Time{})
}

// zoneAt is the zone label written after a time: the zone's name, or, for a
// zone without a usable name ("Local", or a fixed zone with an empty
// name), its offset at t as "UTC+02:00".
func zoneAt(loc *time.Location, t time.Time) string {
	switch name := loc.String(); {
	case loc == time.UTC || name == "UTC":
		return "UTC"
	case name == "" || name == "Local":
		_, off := t.In(loc).Zone()
		sign := '+'
		if off < 0 {
			sign, off = '-', -off
		}
		return fmt.Sprintf("UTC%c%02d:%02d", sign, off/3600, off%3600/60)
	default:
		return name
	}
}

// ParseZone resolves a name written by ZoneName: "" and "UTC" are UTC,
// "Local" the machine's zone, "UTC±hh:mm" a fixed offset, anything else an
// IANA name (time.LoadLocation). It returns ErrUnknownZone otherwise.
func ParseZone(name string) (*time.Location, error) {
	switch {
	case name == "" || name == "UTC":
		return time.UTC, nil
	case name == "Local":
		return time.Local, nil
	case strings.HasPrefix(name, "UTC+") || strings.HasPrefix(name, "UTC-"):
		var h, m int
		if _, err := fmt.Sscanf(name[4:], "%02d:%02d", &h, &m); err == nil && h <= 14 && m < 60 {
			off := h*3600 + m*60
			if name[3] == '-' {
				off = -off
			}
			return time.FixedZone(name, off), nil
		}
	default:
		if loc, err := time.LoadLocation(name); err == nil {
			return loc, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownZone, name)
}
