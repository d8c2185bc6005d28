package embeddedsign_test

import (
	"bufio"
	"net"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"counsel/adapters/smtp"
	"counsel/domain/signing"

	"github.com/matryer/is"
)

// smtpSink is a tiny SMTP server on loopback that accepts every message
// and keeps it.
type smtpSink struct {
	addr string
	mu   sync.Mutex
	msgs []smtpMessage
}

type smtpMessage struct {
	from string
	to   []string
	data string
}

func newSMTPSink(t *testing.T) *smtpSink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &smtpSink{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *smtpSink) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	say := func(line string) { c.Write([]byte(line + "\r\n")) }
	say("220 sink ESMTP")
	var m smtpMessage
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 sink")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			m = smtpMessage{from: strings.TrimSpace(line[len("MAIL FROM:"):])}
			say("250 OK")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			m.to = append(m.to, strings.Trim(strings.TrimSpace(line[len("RCPT TO:"):]), "<>"))
			say("250 OK")
		case cmd == "DATA":
			say("354 go ahead")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			m.data = b.String()
			s.mu.Lock()
			s.msgs = append(s.msgs, m)
			s.mu.Unlock()
			say("250 OK queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("250 OK")
		}
	}
}

func (s *smtpSink) messages() []smtpMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]smtpMessage(nil), s.msgs...)
}

// TestInvitationsThroughSMTP sends the invitations of a preserved-order
// submission through the real SMTP adapter to a loopback sink.
func TestInvitationsThroughSMTP(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sink := newSMTPSink(t)
	h := newHarness(t, withMailer(smtp.New(smtp.Config{Addr: sink.addr, From: "counsel@example.com", Timeout: 5 * time.Second})))
	in := twoSigners(h.template(t).ID, signing.OrderPreserved)
	in.SendEmail = true
	s := h.submission(t, in)

	msgs := sink.messages()
	is.Equal(len(msgs), 1)                                                                  // the first signer only
	is.Equal(msgs[0].to, []string{"client@example.com"})                                    // to them
	is.True(strings.Contains(msgs[0].data, "Subject: Please sign: Service agreement 2026")) // the subject
	is.True(strings.Contains(msgs[0].data, s.Submitters[0].EmbedSrc))                       // their link
	is.True(!strings.Contains(msgs[0].data, path.Base(s.Submitters[1].EmbedSrc)))           // no one else's
	is.Equal(s.Submitters[0].Status, signing.SubmitterSent)                                 // recorded as sent

	h.Complete(t, s.ID, "client@example.com")
	msgs = sink.messages()
	is.Equal(len(msgs), 2)                                            // the next signer after the signature
	is.Equal(msgs[1].to, []string{"partner@example.com"})             // to them
	is.True(strings.Contains(msgs[1].data, s.Submitters[1].EmbedSrc)) // with their link
}
