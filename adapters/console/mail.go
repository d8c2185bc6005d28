package console

import (
	"fmt"
	"net/http"
	"strconv"

	"counsel/domain"
	"counsel/ports"
)

// mailPageSize is how many messages the outbox page lists at a time.
const mailPageSize = 50

// mailData is the outbox page.
type mailData struct {
	Items          []ports.OutboxMail
	Count          int64
	From, To       int64
	Prev, Next     string
	SMTPConfigured bool
}

// mailList is the mail outbox, newest first, for system administrators
// (the use case refuses anyone else; the menu shows it only to them).
func (c *console) mailList(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.Mail == nil {
		c.fail(w, r, p, domain.Errorf(domain.ENOTFOUND, "the mail outbox is not available"))
		return
	}
	offset, err := strconv.ParseInt(r.URL.Query().Get("Offset"), 10, 64)
	if err != nil || offset < 0 {
		offset = 0
	}
	items, count, err := c.svc.Mail.Mails(r.Context(), mailPageSize, offset)
	d := mailData{Items: items, Count: count, From: offset + 1, To: offset + int64(len(items))}
	if offset > 0 {
		d.Prev = fmt.Sprintf("/console/mail?Offset=%d", max(0, offset-mailPageSize))
	}
	if d.To < count {
		d.Next = fmt.Sprintf("/console/mail?Offset=%d", d.To)
	}
	c.listPage(w, r, p, "mail", "Mail", d, err)
}

// mailShow is one message of the outbox with its text and HTML part
// (shown as source: the console never renders mail HTML).
func (c *console) mailShow(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.Mail == nil {
		c.fail(w, r, p, domain.Errorf(domain.ENOTFOUND, "the mail outbox is not available"))
		return
	}
	m, err := c.svc.Mail.OutboxMail(r.Context(), pathID(r))
	c.listPage(w, r, p, "mail_message", m.Subject, m, err)
}
