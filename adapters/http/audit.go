package http

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/audit"
)

// auditFilterParams are the filters of the event list and export.
var auditFilterParams = []param{
	{"Action", lenient(arrayOf(enum(audit.Actions()...)), "several actions comma-separated in one value",
		arrayOf(js{"type": "string", "pattern": "^[a-z_.]+(,[a-z_.]+)*$"})), "repeated (or comma-separated): events of any of these actions"},
	{"ActorUserId", integer(), "events a user made"},
	{"TargetType", enum(audit.TargetUser, audit.TargetRole, audit.TargetOffice, audit.TargetDatabase, audit.TargetAPIKey, audit.TargetWebhook), "events on this kind of target"},
	{"TargetId", str(), "events on this target (with TargetType)"},
	{"From", dateInSchema(), "events at or after this time"},
	{"To", dateInSchema(), "events at or before this time"},
}

// The API reference entries of the audit routes (routes.go).
var (
	opAuditEvents = op{summary: "Security and administration events, newest first", tag: "audit",
		params: append(append([]param{}, auditFilterParams...), pagingParams...), resp: ref("AuditEventPageDto"), errs: []int{400}}
	opAuditExport = op{summary: "Every event matching the filters, newest first, streamed as JSON lines (one AuditEventDto a line) or CSV with a header row",
		tag: "audit", params: append([]param{{"format", enum("jsonl", "csv"), "jsonl (default) or csv"}}, auditFilterParams...),
		kind: kindExport, errs: []int{400}}
)

type auditEventDTO struct {
	ID          int64          `json:"id"`
	At          Time           `json:"at"`
	Action      string         `json:"action"`
	ActorKind   string         `json:"actorKind" enum:"user,apiKey,cli,system,provider"`
	ActorUserID *int64         `json:"actorUserId"`
	ActorName   string         `json:"actorName" doc:"the user's name at the time, or the command or job"`
	TargetType  string         `json:"targetType"`
	TargetID    string         `json:"targetId"`
	IP          string         `json:"ip"`
	UserAgent   string         `json:"userAgent"`
	RequestID   string         `json:"requestId"`
	Details     map[string]any `json:"details" doc:"names of changed fields, a sign-in method or failure reason; never a secret, code, token or pay figure"`
}

func toAuditEvent(e audit.Event) auditEventDTO {
	d := auditEventDTO{ID: e.ID, At: Time(e.At), Action: e.Action, ActorKind: e.Kind, ActorName: e.Name,
		TargetType: e.TargetType, TargetID: e.TargetID, IP: e.IP, UserAgent: e.UserAgent, RequestID: e.RequestID, Details: e.Details}
	if e.UserID != 0 {
		id := e.UserID
		d.ActorUserID = &id
	}
	if d.Details == nil {
		d.Details = map[string]any{}
	}
	return d
}

// auditFilter reads the filters of the list and the export.
func auditFilter(q url.Values, f domain.FieldErrors) audit.Filter {
	var af audit.Filter
	for _, v := range q["action"] {
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a != "" {
				af.Actions = append(af.Actions, a)
			}
		}
	}
	af.ActorUserID = queryInt(q, "ActorUserId", "ActorUserId", f)
	af.TargetType = strings.TrimSpace(q.Get("targettype"))
	af.TargetID = strings.TrimSpace(q.Get("targetid"))
	for _, name := range []string{"From", "To"} {
		v := q.Get(strings.ToLower(name))
		if v == "" {
			continue
		}
		t, err := parseTime(v)
		if err != nil {
			f.Add(name, name+" "+err.Error())
			continue
		}
		if name == "From" {
			af.From = &t
		} else {
			af.To = &t
		}
	}
	return af
}

func (s *server) handleAuditEvents() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := query(r)
		f := domain.FieldErrors{}
		af := auditFilter(q, f)
		limit, offset := paging(q, f)
		if err := f.Err(); err != nil {
			s.fail(w, r, err)
			return
		}
		af.Limit, af.Offset = int(limit), int(offset)
		es, count, err := s.svc.Audit.Events(r.Context(), af)
		items := make([]auditEventDTO, len(es))
		for i, e := range es {
			items[i] = toAuditEvent(e)
		}
		s.reply(w, r, http.StatusOK, newPage(items, count, offset), err)
	}
}

// auditCSVHeader is the export's CSV header; details is its JSON text.
var auditCSVHeader = []string{"id", "at", "action", "actorKind", "actorUserId", "actorName", "targetType", "targetId", "ip", "userAgent", "requestId", "details"}

// handleAuditExport streams the events: each is written as it is read
// (the store reads in bounded batches), so memory does not grow with the
// log. An error after the first byte can only end the stream early.
func (s *server) handleAuditExport() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := query(r)
		f := domain.FieldErrors{}
		format := strings.ToLower(strings.TrimSpace(q.Get("format")))
		if format == "" {
			format = "jsonl"
		}
		if format != "jsonl" && format != "csv" {
			f.Add("format", "format must be jsonl or csv")
		}
		af := auditFilter(q, f)
		if err := f.Err(); err != nil {
			s.fail(w, r, err)
			return
		}
		started := false
		start := func() {
			if started {
				return
			}
			started = true
			h := w.Header()
			name := "counsel-events-" + time.Now().UTC().Format("20060102T150405Z")
			if format == "csv" {
				h.Set("Content-Type", "text/csv; charset=utf-8")
				h.Set("Content-Disposition", `attachment; filename="`+name+`.csv"`)
			} else {
				h.Set("Content-Type", "application/x-ndjson")
				h.Set("Content-Disposition", `attachment; filename="`+name+`.jsonl"`)
			}
			h.Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
		}
		cw := csv.NewWriter(w)
		enc := json.NewEncoder(w)
		n := 0
		err := s.svc.Audit.ExportEvents(r.Context(), af, func(e audit.Event) error {
			if !started {
				start()
				if format == "csv" {
					if err := cw.Write(auditCSVHeader); err != nil {
						return err
					}
				}
			}
			d := toAuditEvent(e)
			if format == "jsonl" {
				return enc.Encode(d)
			}
			actor := ""
			if d.ActorUserID != nil {
				actor = strconv.FormatInt(*d.ActorUserID, 10)
			}
			details, _ := json.Marshal(d.Details)
			if err := cw.Write([]string{strconv.FormatInt(d.ID, 10), Time(e.At).String(), d.Action, d.ActorKind, actor, csvSafe(d.ActorName),
				d.TargetType, csvSafe(d.TargetID), d.IP, csvSafe(d.UserAgent), d.RequestID, string(details)}); err != nil {
				return err
			}
			if n++; n%100 == 0 {
				cw.Flush()
				return cw.Error()
			}
			return nil
		})
		if err != nil && !started {
			s.fail(w, r, err)
			return
		}
		if err != nil {
			s.log.WarnContext(r.Context(), "audit export ended early", "request_id", requestID(r.Context()), "err", err)
			return
		}
		if !started {
			start()
			if format == "csv" {
				cw.Write(auditCSVHeader)
			}
		}
		cw.Flush()
	}
}

// csvSafe keeps a spreadsheet from reading a value as a formula
// (CSV injection): a leading =, +, -, @, tab or carriage return gets a
// leading apostrophe.
func csvSafe(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}
