// Command bare is the yardstick of Counsel's throughput targets: a bare
// net/http server answering a JSON body like GET /api/me's, with no
// authentication, routing or database.
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen address")
	flag.Parse()
	body := map[string]any{
		"id": 1, "email": "admin@localhost", "contactNumber": "", "firstName": "Admin", "lastName": "User",
		"profilePictureUrl": "", "hasActiveTimer": false, "hasNotifications": false, "hasActiveDocument": false,
		"hasIncompleteReviewRequest": false, "hasUnacknowledgedCompletedReview": false, "invoicesAwaitingApproval": 0,
		"invoicesReadyForProcessing": 0, "fteLoad": 1, "billingRate": 350, "billablePercentage": 85, "pqy": 3.5,
		"remunerationIncSuper": 150000, "admissionDate": "2022-05-01T00:00:00Z", "office": nil, "address": nil,
	}
	http.HandleFunc("/api/me", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(body)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
