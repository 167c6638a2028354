package planner

import (
	"context"
	"fmt"
	"math"

	"memplan/ir"
)

// Estimate is the memory a run needs (REFERENCE R3): the planned
// activation arena, the weights (each owned param once: a tied weight is a
// view of another param and costs nothing), and the graph inputs.
type Estimate struct {
	Activation int64 `json:"activation"`
	Weights    int64 `json:"weights"`
	Inputs     int64 `json:"inputs"`
	Peak       int64 `json:"peak"`
}

// EstimateGraph plans the graph's activations with params and inputs left
// out of the arena, then adds the weights and inputs back.
func EstimateGraph(ctx context.Context, g *ir.Graph, opts Options, strategy string, popts PlaceOptions) (Estimate, *Plan, error) {
	opts.SkipParams, opts.SkipInputs = true, true
	plan, err := PlanSource(ctx, &ir.Source{Graph: g}, opts, strategy, popts)
	if err != nil {
		return Estimate{}, nil, err
	}
	e := Estimate{Activation: plan.ArenaSize}
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		if t.Root != "" {
			continue
		}
		switch t.Kind {
		case KindParam:
			e.Weights += t.Size
		case KindInput:
			e.Inputs += t.Size
		}
	}
	e.Peak = e.Activation + e.Weights + e.Inputs
	if e.Peak < 0 {
		return Estimate{}, nil, fmt.Errorf("estimated peak overflows int64")
	}
	return e, plan, nil
}

// BudgetError is a deficit: what was needed exceeds the budget.
type BudgetError struct {
	What   string // "estimated peak", "arena"
	Need   int64
	Budget int64
	Detail string // breakdown, such as "(activation 700.12 MiB, weights 100.3 MiB, inputs 12 MiB)"
}

func (e *BudgetError) Error() string {
	msg := fmt.Sprintf("%s %s exceeds budget %s by %s", e.What, FormatBytes(e.Need), FormatBytes(e.Budget), FormatBytes(e.Need-e.Budget))
	if e.Detail != "" {
		msg += " " + e.Detail
	}
	return msg
}

// FitsIn returns nil if the estimate fits the budget, else a *BudgetError
// whose message reads like `estimated peak 812.42 MiB exceeds budget 512
// MiB by 300.42 MiB (activation 700.12 MiB, weights 100.3 MiB, inputs 12
// MiB)`.
func (e Estimate) FitsIn(budget int64) error {
	if e.Peak <= budget {
		return nil
	}
	return &BudgetError{What: "estimated peak", Need: e.Peak, Budget: budget,
		Detail: "(activation " + FormatBytes(e.Activation) + ", weights " + FormatBytes(e.Weights) + ", inputs " + FormatBytes(e.Inputs) + ")"}
}

// ArenaFitsIn checks a plan's arena against a budget.
func (p *Plan) ArenaFitsIn(budget int64) error {
	if p.ArenaSize <= budget {
		return nil
	}
	return &BudgetError{What: "arena", Need: p.ArenaSize, Budget: budget,
		Detail: fmt.Sprintf("(lower bound %s)", FormatBytes(p.LowerBound))}
}

// SoftBudget is the share of physical memory a run may plan to use
// (default fraction 0.80).
func SoftBudget(physical int64, fraction float64) int64 {
	if fraction <= 0 || fraction > 1 {
		fraction = 0.80
	}
	return int64(float64(physical) * fraction)
}

// MoE describes mixture-of-experts offloading: experts that are not
// resident are streamed in when routed to.
type MoE struct {
	ExpertBytes     int64   `json:"expert_bytes"`      // bytes of one expert's weights
	Layers          int     `json:"layers"`            // MoE layers
	ExpertsPerLayer int     `json:"experts_per_layer"` // experts in each layer
	MaxResident     int     `json:"max_resident"`      // cap on resident experts per layer (0: no cap)
	Budget          int64   `json:"budget"`            // memory budget in bytes
	Reserve         float64 `json:"reserve"`           // fraction of the budget kept free, in [0, 1)
	BaseBytes       int64   `json:"base_bytes"`        // everything else: activations, dense weights, inputs
}

// MoEResult is how many experts per layer stay resident and what that costs.
type MoEResult struct {
	ResidentPerLayer int   `json:"resident_per_layer"`
	Offloaded        int   `json:"offloaded_per_layer"`
	Peak             int64 `json:"peak"`
	Usable           int64 `json:"usable"` // budget less the reserve
}

// PlanMoE keeps as many experts per layer resident as the budget allows,
// at least one (the routed expert must be in memory), at most MaxResident.
func PlanMoE(m MoE) (MoEResult, error) {
	switch {
	case m.ExpertBytes <= 0 || m.Layers <= 0 || m.ExpertsPerLayer <= 0:
		return MoEResult{}, fmt.Errorf("expert bytes, layers and experts per layer must be positive")
	case m.MaxResident < 0 || m.Budget < 0 || m.BaseBytes < 0:
		return MoEResult{}, fmt.Errorf("max resident, budget and base bytes must not be negative")
	case m.Reserve < 0 || m.Reserve >= 1 || math.IsNaN(m.Reserve):
		return MoEResult{}, fmt.Errorf("reserve %v must be in [0, 1)", m.Reserve)
	}
	usable := int64(float64(m.Budget) * (1 - m.Reserve))
	perRound, err := ir.MulSize(m.ExpertBytes, int64(m.Layers)) // one expert in every layer
	if err != nil {
		return MoEResult{}, fmt.Errorf("expert bytes × layers: %w", err)
	}
	limit := m.ExpertsPerLayer
	if m.MaxResident > 0 {
		limit = min(limit, m.MaxResident)
	}
	resident := 0
	if room := usable - m.BaseBytes; room > 0 {
		resident = int(min(room/perRound, int64(limit)))
	}
	r := MoEResult{ResidentPerLayer: max(resident, 1), Usable: usable}
	r.Offloaded = m.ExpertsPerLayer - r.ResidentPerLayer
	experts, err := ir.MulSize(perRound, int64(r.ResidentPerLayer))
	if err == nil {
		r.Peak, err = ir.AddSize(m.BaseBytes, experts)
	}
	if err != nil {
		return MoEResult{}, fmt.Errorf("peak: %w", err)
	}
	if resident < 1 {
		return r, &BudgetError{What: "estimated peak", Need: r.Peak, Budget: usable,
			Detail: "(base " + FormatBytes(m.BaseBytes) + ", one expert per layer " + FormatBytes(perRound) + ")"}
	}
	return r, nil
}
