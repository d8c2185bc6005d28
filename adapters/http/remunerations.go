package http

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"counsel/domain"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

// The API reference entries of the remuneration routes (routes.go).
var (
	opRemunerations = op{summary: "Remunerations, newest first; the user filter applies to the staff member", tag: "remunerations",
		params: userFilterParams, resp: ref("RemunerationPageDto"), errs: []int{400}}
	opRemuneration       = op{summary: "One remuneration", tag: "remunerations", resp: ref("RemunerationDto"), errs: []int{404}}
	opLatestRemuneration = op{summary: "A staff member's latest remuneration (greatest remunerationDate, then id)", tag: "remunerations",
		resp: ref("RemunerationDto"), errs: []int{404}}
	opCreateRemuneration = op{summary: "Record a remuneration; its figures are computed and kept as of now", tag: "remunerations",
		body: ref("RemunerationInput"), resp: ref("RemunerationDto"), errs: []int{400, 404}}
	opPQEAdjustments = op{summary: "A staff member's PQE adjustments, newest start first", tag: "remunerations", params: pagingParams,
		resp: ref("PqeAdjustmentPageDto"), errs: []int{400, 404}}
	opCreatePQEAdjustment = op{summary: "Record a PQE adjustment: your own, or anyone's with RemunerationsCreate", tag: "remunerations",
		body: ref("PqeAdjustmentInput"), resp: ref("PqeAdjustmentDto"), errs: []int{400, 403, 404}}
)

type staffDTO struct {
	ID            int64      `json:"id"`
	Email         string     `json:"email"`
	FirstName     string     `json:"firstName"`
	LastName      string     `json:"lastName"`
	FullName      string     `json:"fullName"`
	Active        bool       `json:"active"`
	IsLegal       bool       `json:"isLegal"`
	IsStaff       bool       `json:"isStaff"`
	AdmissionDate *Time      `json:"admissionDate"`
	Office        *officeDTO `json:"office"`
}

func toStaff(u user.User) staffDTO {
	return staffDTO{ID: u.ID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName, FullName: u.FullName(),
		Active: u.Active, IsLegal: u.IsLegal, IsStaff: u.IsStaff, AdmissionDate: timePtr(u.AdmissionDate), Office: toOfficePtr(u.Office)}
}

type remunerationDTO struct {
	ID                   int64        `json:"id"`
	StaffID              int64        `json:"staffId"`
	FTELoad              json.Number  `json:"fteLoad" doc:"fraction of full time, 0 < fteLoad <= 1"`
	RemunerationIncSuper json.Number  `json:"remunerationIncSuper" doc:"yearly, including superannuation"`
	CostPerHour          json.Number  `json:"costPerHour" doc:"remunerationIncSuper / (fteLoad × 1976), to cents"`
	PQY                  *json.Number `json:"pqy" doc:"post-qualification years at remunerationDate, as computed at creation; null without an admission date"`
	BillingRate          json.Number  `json:"billingRate"`
	BillablePercentage   json.Number  `json:"billablePercentage"`
	KPI                  json.Number  `json:"kpi" doc:"4 × fteLoad × remunerationIncSuper, to cents"`
	KPIBillable          json.Number  `json:"kpiBillable" doc:"3.5 × fteLoad × remunerationIncSuper, to cents"`
	KPIInvoiced          json.Number  `json:"kpiInvoiced" doc:"3 × fteLoad × remunerationIncSuper, to cents"`
	RemunerationDate     Time         `json:"remunerationDate"`
	CommencementDate     Time         `json:"commencementDate"`
	TerminationDate      *Time        `json:"terminationDate"`
	Staff                staffDTO     `json:"staff"`
}

func toRemuneration(sr user.StaffRemuneration) remunerationDTO {
	r := sr.Remuneration
	return remunerationDTO{ID: r.ID, StaffID: r.StaffID, FTELoad: plain(r.FTELoad), RemunerationIncSuper: money(r.RemunerationIncSuper),
		CostPerHour: money(r.CostPerHour), PQY: years(r.PQY), BillingRate: money(r.BillingRate), BillablePercentage: plain(r.BillablePercentage),
		KPI: money(r.KPI), KPIBillable: money(r.KPIBillable), KPIInvoiced: money(r.KPIInvoiced),
		RemunerationDate: Time(r.RemunerationDate), CommencementDate: Time(r.CommencementDate), TerminationDate: timePtr(r.TerminationDate),
		Staff: toStaff(sr.Staff)}
}

type pqeAdjustmentDTO struct {
	ID        int64    `json:"id"`
	StaffID   int64    `json:"staffId"`
	Name      string   `json:"name"`
	Details   string   `json:"details"`
	StartDate Time     `json:"startDate"`
	EndDate   Time     `json:"endDate" doc:"the period's last day, included"`
	Staff     staffDTO `json:"staff"`
}

func toPQEAdjustment(sa user.StaffAdjustment) pqeAdjustmentDTO {
	a := sa.PQEAdjustment
	return pqeAdjustmentDTO{ID: a.ID, StaffID: a.StaffID, Name: a.Name, Details: a.Details,
		StartDate: Time(a.StartDate), EndDate: Time(a.EndDate), Staff: toStaff(sa.Staff)}
}

type remunerationIn struct {
	StaffID              int64    `json:"staffId" required:"true" doc:"an existing user (404 otherwise)"`
	FTELoad              numberIn `json:"fteLoad" required:"true" doc:"0 < fteLoad <= 1, kept to 4 places"`
	RemunerationIncSuper numberIn `json:"remunerationIncSuper" required:"true" doc:">= 0, kept to cents"`
	BillingRate          numberIn `json:"billingRate" doc:">= 0, kept to cents; default 0"`
	BillablePercentage   numberIn `json:"billablePercentage" doc:"0 to 100; default 0"`
	RemunerationDate     dateIn   `json:"remunerationDate" required:"true"`
	CommencementDate     dateIn   `json:"commencementDate" required:"true"`
	TerminationDate      dateIn   `json:"terminationDate" doc:"not before commencementDate"`
}

// remuneration converts the body. Missing required values are reported
// here with the wrong-kind ones; the rules on values are the domain's.
func (in remunerationIn) remuneration() (remuneration.Remuneration, error) {
	f := domain.FieldErrors{}
	r := remuneration.Remuneration{StaffID: in.StaffID}
	r.FTELoad = in.FTELoad.required("fteLoad", f)
	r.RemunerationIncSuper = in.RemunerationIncSuper.required("remunerationIncSuper", f)
	if d := in.BillingRate.optional("billingRate", f); d != nil {
		r.BillingRate = *d
	}
	if d := in.BillablePercentage.optional("billablePercentage", f); d != nil {
		r.BillablePercentage = *d
	}
	r.RemunerationDate = in.RemunerationDate.value("remunerationDate", f)
	r.CommencementDate = in.CommencementDate.value("commencementDate", f)
	if t := in.TerminationDate.value("terminationDate", f); !t.IsZero() {
		r.TerminationDate = &t
	}
	r.Normalize()
	return r, mergeFields(f, r.Validate())
}

// mergeFields adds the field errors of a domain validation to those found
// while decoding, skipping fields that already have one, so a client
// learns about every bad field at once.
func mergeFields(f domain.FieldErrors, err error) error {
	var de *domain.Error
	if errors.As(err, &de) {
		for k, v := range de.Fields {
			if _, seen := f[k]; !seen {
				f[k] = v
			}
		}
	} else if err != nil {
		return err
	}
	return f.Err()
}

type pqeAdjustmentIn struct {
	StaffID   int64  `json:"staffId" required:"true" doc:"yourself, or anyone with RemunerationsCreate"`
	Name      string `json:"name" required:"true"`
	Details   string `json:"details"`
	StartDate dateIn `json:"startDate" required:"true"`
	EndDate   dateIn `json:"endDate" required:"true" doc:"not before startDate"`
}

func (in pqeAdjustmentIn) adjustment() (remuneration.PQEAdjustment, error) {
	f := domain.FieldErrors{}
	a := remuneration.PQEAdjustment{StaffID: in.StaffID, Name: in.Name, Details: in.Details,
		StartDate: in.StartDate.value("startDate", f), EndDate: in.EndDate.value("endDate", f)}
	a.Normalize()
	return a, mergeFields(f, a.Validate())
}

func (s *server) handleRemunerations() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f := domain.FieldErrors{}
		uf := userFilter(query(r), f)
		if err := f.Err(); err != nil {
			s.fail(w, r, err)
			return
		}
		rs, count, err := s.svc.Remunerations.Remunerations(r.Context(), uf)
		items := make([]remunerationDTO, len(rs))
		for i, x := range rs {
			items[i] = toRemuneration(x)
		}
		s.reply(w, r, http.StatusOK, newPage(items, count, uf.Offset), err)
	}
}

func (s *server) handleRemuneration() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		x, err := s.svc.Remunerations.Remuneration(r.Context(), id)
		s.reply(w, r, http.StatusOK, toRemuneration(x), err)
	}
}

func (s *server) handleLatestRemuneration() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		x, err := s.svc.Remunerations.LatestRemuneration(r.Context(), id)
		s.reply(w, r, http.StatusOK, toRemuneration(x), err)
	}
}

func (s *server) handleCreateRemuneration() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body remunerationIn
		if err := decode(r, &body); err != nil {
			s.fail(w, r, err)
			return
		}
		in, err := body.remuneration()
		if err != nil {
			s.fail(w, r, err)
			return
		}
		x, err := s.svc.Remunerations.CreateRemuneration(r.Context(), in)
		s.reply(w, r, http.StatusOK, toRemuneration(x), err)
	}
}

func (s *server) handlePQEAdjustments() http.HandlerFunc {
	return pagedOf(s, func(ctx context.Context, id, limit, offset int64) ([]user.StaffAdjustment, int64, error) {
		return s.svc.Remunerations.PQEAdjustments(ctx, id, limit, offset)
	}, toPQEAdjustment)
}

// pagedOf answers a page (Limit, Offset) of what list returns for the
// resource {id}, each item rendered by dto. list is called per request
// (the services are set after the routes).
func pagedOf[T, D any](s *server, list func(ctx context.Context, id, limit, offset int64) ([]T, int64, error), dto func(T) D) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		f := domain.FieldErrors{}
		limit, offset := paging(query(r), f)
		if err := f.Err(); err != nil {
			s.fail(w, r, err)
			return
		}
		as, count, err := list(r.Context(), id, limit, offset)
		items := make([]D, len(as))
		for i, a := range as {
			items[i] = dto(a)
		}
		s.reply(w, r, http.StatusOK, newPage(items, count, offset), err)
	}
}

func (s *server) handleCreatePQEAdjustment() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body pqeAdjustmentIn
		if err := decode(r, &body); err != nil {
			s.fail(w, r, err)
			return
		}
		in, err := body.adjustment()
		if err != nil {
			s.fail(w, r, err)
			return
		}
		x, err := s.svc.Remunerations.CreatePQEAdjustment(r.Context(), in)
		s.reply(w, r, http.StatusOK, toPQEAdjustment(x), err)
	}
}
