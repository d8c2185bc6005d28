package pdfevidence

import (
	"encoding/json"

	"counsel/domain/signing"
)

// SignRaw signs a complete PDF as Produce signs the combined one, without
// stamping or merging it: benchmarks sign large files with it.
func (e *Evidence) SignRaw(pdf []byte, ev signing.Evidence) ([]byte, error) {
	summary, err := json.Marshal(toWire(ev.Summary()))
	if err != nil {
		return nil, err
	}
	return e.sign(pdf, summary, ev)
}
