package store

// Inventory counts items per SKU.
type Inventory struct {
	counts map[string]int
}

func NewInventory() *Inventory {
	return &Inventory{counts: map[string]int{}}
}

func (inv *Inventory) AddStock(sku string, n int) {
	inv.counts[sku] += n
}
