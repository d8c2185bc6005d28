package embeddedsign_test

import (
	"path"
	"strings"
	"testing"
	"time"

	"counsel/adapters/smtp"
	"counsel/adapters/smtp/smtptest"
	"counsel/domain/signing"

	"github.com/matryer/is"
)

// TestInvitationsThroughSMTP sends the invitations of a preserved-order
// submission through the real SMTP adapter to a loopback sink.
func TestInvitationsThroughSMTP(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sink := smtptest.New(t)
	h := newHarness(t, withMailer(smtp.New(smtp.Config{Addr: sink.Addr(), From: "counsel@example.com", Timeout: 5 * time.Second})))
	in := twoSigners(h.template(t).ID, signing.OrderPreserved)
	in.SendEmail = true
	s := h.submission(t, in)

	msgs := sink.Messages()
	is.Equal(len(msgs), 1)                                                                  // the first signer only
	is.Equal(msgs[0].To, []string{"client@example.com"})                                    // to them
	is.True(strings.Contains(msgs[0].Data, "Subject: Please sign: Service agreement 2026")) // the subject
	is.True(strings.Contains(msgs[0].Data, s.Submitters[0].EmbedSrc))                       // their link
	is.True(!strings.Contains(msgs[0].Data, path.Base(s.Submitters[1].EmbedSrc)))           // no one else's
	is.Equal(s.Submitters[0].Status, signing.SubmitterSent)                                 // recorded as sent

	h.Complete(t, s.ID, "client@example.com")
	msgs = sink.Messages()
	is.Equal(len(msgs), 2)                                            // the next signer after the signature
	is.Equal(msgs[1].To, []string{"partner@example.com"})             // to them
	is.True(strings.Contains(msgs[1].Data, s.Submitters[1].EmbedSrc)) // with their link
}
