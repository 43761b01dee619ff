package store

import "testing"

// validShm is a -shm's first 100 bytes: both header copies valid (salts
// salts, mxFrame mx), nBackfill nb.
func validShm(mx, nb uint32, salts [8]byte) []byte {
	b := make([]byte, shmMinSize)
	h := b[:shmHeaderSize]
	o := hostOrder()
	o.PutUint32(h[0:], shmVersion)
	h[12] = 1 // isInit
	o.PutUint32(h[16:], mx)
	copy(h[32:40], salts[:])
	sum := shmChecksum(h[:shmHeaderCksumAt])
	o.PutUint32(h[40:], sum[0])
	o.PutUint32(h[44:], sum[1])
	copy(b[shmHeaderSize:], h)
	o.PutUint32(b[shmNBackfillAt:], nb)
	return b
}

// TestParseWALIndex: only a -shm whose two header copies are equal,
// initialised, of SQLite's version and checksum-valid, with nBackfill ≤
// mxFrame, is trusted.
func TestParseWALIndex(t *testing.T) {
	salts := [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	for _, tc := range []struct {
		name   string
		mangle func(b []byte) []byte
		ok     bool
	}{
		{"Valid", func(b []byte) []byte { return b }, true},
		{"Short", func(b []byte) []byte { return b[:shmMinSize-1] }, false},
		{"CopiesDiffer", func(b []byte) []byte { b[shmHeaderSize+8] ^= 1; return b }, false},
		{"ChecksumFails", func(b []byte) []byte { b[16] ^= 1; b[shmHeaderSize+16] ^= 1; return b }, false},
		{"NotInit", func(b []byte) []byte { b[12], b[shmHeaderSize+12] = 0, 0; return b }, false},
		{"BackfillPastEnd", func(b []byte) []byte { hostOrder().PutUint32(b[shmNBackfillAt:], 15); return b }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := parseWALIndex(tc.mangle(validShm(14, 14, salts)))
			if ok != tc.ok {
				t.Fatalf("ok=%v, want %v", ok, tc.ok)
			}
			if ok && (w.mxFrame != 14 || w.nBackfill != 14 || w.salts != salts) {
				t.Fatalf("walIndex=%+v, want mxFrame 14, nBackfill 14, salts %v", w, salts)
			}
		})
	}
}
