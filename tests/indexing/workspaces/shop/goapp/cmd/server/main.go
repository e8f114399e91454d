package main

import "example.com/shop/store"

func main() {
	inv := store.NewInventory()
	inv.AddStock("apple", 3)
}
