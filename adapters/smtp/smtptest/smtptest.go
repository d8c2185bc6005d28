// Package smtptest is a tiny SMTP server on loopback for tests: it accepts
// every message and keeps it, so a test can read what the service sent.
package smtptest

import (
	"bufio"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one message the sink received.
type Message struct {
	From string
	To   []string
	Data string    // headers and body, dot-unstuffed
	At   time.Time // when the sink accepted it
}

// Sink is a running SMTP server that records the messages it gets.
type Sink struct {
	addr string
	got  chan struct{}
	mu   sync.Mutex
	msgs []Message
	fail int // the next fail messages are refused with a temporary error
}

// FailNext makes the sink refuse the next n messages (451 at the end of
// DATA), as a relay that is down for a while.
func (s *Sink) FailNext(n int) {
	s.mu.Lock()
	s.fail = n
	s.mu.Unlock()
}

// New starts a sink that stops when t ends.
func New(t testing.TB) *Sink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &Sink{addr: ln.Addr().String(), got: make(chan struct{}, 100)}
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

// Addr is the sink's host:port.
func (s *Sink) Addr() string { return s.addr }

// Got receives once per message stored.
func (s *Sink) Got() <-chan struct{} { return s.got }

// Messages returns the messages received so far.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

func (s *Sink) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	say := func(line string) { c.Write([]byte(line + "\r\n")) }
	say("220 sink ESMTP")
	var m Message
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
			m = Message{From: strings.TrimSpace(line[len("MAIL FROM:"):])}
			say("250 OK")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			m.To = append(m.To, strings.Trim(strings.TrimSpace(line[len("RCPT TO:"):]), "<>"))
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
			m.Data, m.At = b.String(), time.Now()
			s.mu.Lock()
			if s.fail > 0 {
				s.fail--
				s.mu.Unlock()
				say("451 try again later")
				continue
			}
			s.msgs = append(s.msgs, m)
			s.mu.Unlock()
			select {
			case s.got <- struct{}{}:
			default:
			}
			say("250 OK queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("250 OK")
		}
	}
}

// Parsed is a message read back as a mail client would.
type Parsed struct {
	Header      mail.Header
	Subject     string // decoded
	Text, HTML  string // the decoded parts, CRLF turned into LF
	Attachments map[string][]byte
}

// Parse reads m's MIME structure: the plain-text and HTML parts and the
// attachments by file name.
func (m Message) Parse() (Parsed, error) {
	msg, err := mail.ReadMessage(strings.NewReader(m.Data))
	if err != nil {
		return Parsed{}, err
	}
	p := Parsed{Header: msg.Header, Attachments: map[string][]byte{}}
	if p.Subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return p, err
	}
	return p, p.walk(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), "", msg.Body)
}

func (p *Parsed) walk(ctype, cte, disposition string, body io.Reader) error {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mt, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			part, err := r.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := p.walk(part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"), part.Header.Get("Content-Disposition"), part); err != nil {
				return err
			}
		}
	}
	switch strings.ToLower(cte) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	if d, dp, err := mime.ParseMediaType(disposition); err == nil && d == "attachment" {
		p.Attachments[dp["filename"]] = b
		return nil
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	switch mt {
	case "text/plain":
		p.Text = text
	case "text/html":
		p.HTML = text
	}
	return nil
}
