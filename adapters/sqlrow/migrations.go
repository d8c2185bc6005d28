package sqlrow

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migration is one file of an engine's migrations/ folder, named
// NNNN_what.sql; the two engines share one numbering (a number means one
// change), and a folder may skip the numbers of the other engine's alone.
type Migration struct {
	Version int
	Name    string
	Body    string
}

// Migrations reads the migrations of fsys numbered up to last (0 for
// all), in order.
func Migrations(fsys fs.FS, last int) ([]Migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", base)
		}
		if last > 0 && version > last {
			break
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: version, Name: base, Body: string(body)})
	}
	return out, nil
}
