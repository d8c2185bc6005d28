package http

import (
	"net/http"

	"counsel/domain"
	"counsel/ports"
)

// The mail outbox (docs/decisions.md §16), listed to system
// administrators; the use case refuses anyone else with a 403.

// The API reference entries of the mail routes (routes.go).
var (
	opMails = op{summary: "The mail outbox, newest first: every email Counsel sent or will send (one-time codes aside) and its status: pending (to send or retry), sent, failed (given up after 24 hours of retries) or kept (no SMTP configured: shown here and in the console, never sent). System administrators only",
		tag: "system", params: pagingParams, resp: ref("MailPageDto"), errs: []int{400, 403}}
)

type mailDTO struct {
	ID        int64  `json:"id"`
	To        string `json:"to"`
	Subject   string `json:"subject"`
	Kind      string `json:"kind" doc:"what the message is: signingReminder, signingCompleted, ownerNotice, keyDateDigest, ..."`
	Status    string `json:"status" doc:"pending, sent, failed or kept"`
	CreatedAt Time   `json:"createdAt"`
	SentAt    *Time  `json:"sentAt" doc:"when the relay accepted it; null until sent"`
	Error     string `json:"error" doc:"the last attempt's error; empty when none"`
}

func toMail(m ports.OutboxMail) mailDTO {
	return mailDTO{ID: m.ID, To: m.To, Subject: m.Subject, Kind: m.Kind, Status: m.Status, CreatedAt: Time(m.CreatedAt),
		SentAt: timePtr(m.SentAt), Error: m.Error}
}

func (s *server) handleMails() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f := domain.FieldErrors{}
		limit, offset := paging(query(r), f)
		if err := f.Err(); err != nil {
			s.fail(w, r, err)
			return
		}
		ms, count, err := s.svc.Mail.Mails(r.Context(), limit, offset)
		items := make([]mailDTO, len(ms))
		for i, m := range ms {
			items[i] = toMail(m)
		}
		s.reply(w, r, http.StatusOK, newPage(items, count, offset), err)
	}
}
