// The policy's users see the basics under it as part of it.
@_exported import KioskBasics
