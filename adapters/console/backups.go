package console

import (
	"net/http"

	"counsel/domain"
)

// backupsList is the scheduled backups' page, for system administrators
// (the use case refuses anyone else; the menu shows it only to them).
func (c *console) backupsList(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.Backups == nil {
		c.fail(w, r, p, domain.Errorf(domain.ENOTFOUND, "scheduled backups are not available"))
		return
	}
	runs, err := c.svc.Backups.Backups(r.Context())
	c.listPage(w, r, p, "backups", "Backups", runs, err)
}
