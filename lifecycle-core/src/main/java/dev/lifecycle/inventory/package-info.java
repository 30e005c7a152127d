/**
 * What lifecycle left on this machine, and the exact sweep of it: {@link
 * dev.lifecycle.inventory.Inventory} lists every tree lifecycle made that still has a live member
 * (owned cgroups by name, SESSION-tier trees by cookie, tether sidecars), judges each owner on
 * proof, and ends exactly the trees whose owner is proven gone.
 */
package dev.lifecycle.inventory;
