package http

import (
	"net/http"

	"counsel/ports"
)

// The scheduled backups (COUNSEL_BACKUP_DIR), listed to system
// administrators; the use case refuses anyone else with a 403.

// The API reference entries of the backup routes (routes.go).
var (
	opBackups = op{summary: "The scheduled backups (COUNSEL_BACKUP_DIR), newest first, including failed attempts: each file's name, time, size, and whether it was written and verified (system administrators only)",
		tag: "system", resp: object(js{"items": arrayOf(backupItem())}, "items"), errs: []int{403}}
)

// backupItem is one scheduled backup of the list.
func backupItem() js {
	return object(js{
		"name":      str(),
		"createdAt": dateTime(),
		"size":      integer(),
		"ok":        boolean(),
		"error":     str(),
	}, "name", "createdAt", "size", "ok", "error")
}

type backupDTO struct {
	Name      string `json:"name"`
	CreatedAt Time   `json:"createdAt"`
	Size      int64  `json:"size"`
	OK        bool   `json:"ok"`
	Error     string `json:"error"`
}

func (s *server) handleBackups() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		runs, err := s.svc.Backups.Backups(r.Context())
		items := make([]backupDTO, 0, len(runs))
		for _, b := range runs {
			items = append(items, toBackup(b))
		}
		s.reply(w, r, http.StatusOK, map[string]any{"items": items}, err)
	}
}

func toBackup(b ports.BackupRun) backupDTO {
	return backupDTO{Name: b.Name, CreatedAt: Time(b.CreatedAt), Size: b.Size, OK: b.OK, Error: b.Error}
}
