package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteSize is n bytes for a person: "1 byte", "512 bytes", "1.5 MB",
// "4.0 GB" (powers of 1024, up to EB).
func byteSize(n int64) string {
	const unit = 1024
	switch {
	case n == 1:
		return "1 byte"
	case n < unit:
		return fmt.Sprintf("%d bytes", n)
	}
	names := []string{"KB", "MB", "GB", "TB", "PB", "EB"}
	v, i := float64(n)/unit, 0
	for v >= unit && i < len(names)-1 {
		v, i = v/unit, i+1
	}
	return fmt.Sprintf("%.1f %s", v, names[i])
}

// byteUnits are the units parseByteSize reads, lower-cased, in bytes:
// each power of 1024 spelled K, KB or KiB (and so on), as byteSize
// prints them.
var byteUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
	"p": 1 << 50, "pb": 1 << 50, "pib": 1 << 50,
	"e": 1 << 60, "eb": 1 << 60, "eib": 1 << 60,
}

// maxByteSize is the largest size parseByteSize returns: 4 EiB, far past
// any disk, and no overflow of an int64 count.
const maxByteSize = 1 << 62

// parseByteSize reads a size of a flag: a number of bytes, or a number
// (a fraction allowed) and a unit of powers of 1024 (K, KB, KiB; M…; G…;
// T…; P…; E…, any case, a space before it allowed): "1073741824", "512MiB",
// "1.5 GB". The result is whole bytes, from 1 to maxByteSize.
func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	unit, ok := byteUnits[strings.ToLower(strings.TrimSpace(t[i:]))]
	if i == 0 {
		ok = false // no number: "-5", "GiB", ""
	}
	if !ok && i > 0 {
		return 0, fmt.Errorf("%q: the unit must be one of B, KiB, MiB, GiB, TiB, PiB, EiB (or K, KB, M, MB …: powers of 1024)", s)
	}
	v, err := strconv.ParseFloat(t[:i], 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("%q is not a size: want a number of bytes, or a number and a unit (512MiB, 4GiB)", s)
	}
	n := v * float64(unit)
	switch {
	case n < 1:
		return 0, fmt.Errorf("%q: the size must be at least 1 byte", s)
	case n > maxByteSize || math.IsInf(n, 0):
		return 0, fmt.Errorf("%q: the size must be at most 4 EiB", s)
	}
	return int64(n), nil
}

// flagByteSize is n as a size flag takes it (parseByteSize): in the
// largest unit that holds it whole ("1GiB", "512MiB"), else in bytes.
func flagByteSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"EiB", 1 << 60}, {"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}
