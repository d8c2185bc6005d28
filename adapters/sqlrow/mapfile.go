package sqlrow

import (
	"os"
	"syscall"
)

// MappedFile lends a spooled upload's bytes as a read-only memory map, so
// a check that needs them all at once (the PDF stream bound) reads the
// page cache instead of copying the file onto the heap. The map stays
// valid after the file is closed or removed, until Unmap.
type MappedFile struct{ b []byte }

// Map maps the first size bytes of f (size 0 maps nothing).
func (m *MappedFile) Map(f *os.File, size int64) ([]byte, error) {
	if m.b != nil || size == 0 {
		return m.b, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	m.b = b
	return b, nil
}

// Unmap releases the map; the bytes Map returned must not be used after.
func (m *MappedFile) Unmap() {
	if m.b != nil {
		syscall.Munmap(m.b)
		m.b = nil
	}
}
