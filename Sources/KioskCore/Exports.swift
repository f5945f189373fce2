// The core's users see the three targets under it as part of it: a type that moves between the
// three pure targets (to keep them acyclic) changes no import elsewhere.
@_exported import KioskBasics
@_exported import KioskPicture
@_exported import KioskPolicy
