/// Where each screen of a mirror or a span takes its picture from: a rectangle of the one
/// picture the engine draws (the canvas), and how that rectangle lands on the screen's buffer.
/// Pure geometry, shared by every multi-screen output.
public struct HeadPlacement: Sendable, Hashable, CustomStringConvertible {
    /// The part of the canvas this screen shows.
    public var canvasRect: PixelRect
    /// The canvas rectangle on the screen's buffer: scaled (mirror: fitted), turned by the
    /// screen's software rotation.
    public var layout: GravityLayout

    public var description: String { "\(canvasRect) -> \(layout.destination) on \(layout.target)" }
}

/// A span: screens in a grid of columns x rows, the picture cut across them. Each column is as
/// wide as its widest screen, each row as tall as its tallest, and `bezel` pixels of the canvas
/// lie between neighbours: the picture hidden behind the panels' frames, so a line that
/// crosses from one screen to the next stays straight. Screens are listed row by row.
public struct SpanLayout: Sendable, Hashable {
    public let canvas: PixelSize
    /// Each screen's rectangle of the canvas, in the order of the screens.
    public let tiles: [PixelRect]

    /// `screens`: each screen's upright size (its mode, transposed when turned 90 or 270).
    /// Nil when the count does not fill the grid.
    public init?(grid: GridSize, screens: [PixelSize], bezel: Int) {
        guard screens.count == grid.count, bezel >= 0, screens.allSatisfy({ !$0.isEmpty }) else { return nil }
        let widths = (0..<grid.columns).map { column in
            (0..<grid.rows).map { screens[$0 * grid.columns + column].width }.max()!
        }
        let heights = (0..<grid.rows).map { row in
            (0..<grid.columns).map { screens[row * grid.columns + $0].height }.max()!
        }
        var tiles: [PixelRect] = []
        for row in 0..<grid.rows {
            let y = heights[..<row].reduce(0, +) + row * bezel
            for column in 0..<grid.columns {
                let x = widths[..<column].reduce(0, +) + column * bezel
                let size = screens[row * grid.columns + column]
                tiles.append(PixelRect(x: x, y: y, width: size.width, height: size.height))
            }
        }
        self.tiles = tiles
        canvas = PixelSize(width: widths.reduce(0, +) + (grid.columns - 1) * bezel,
                           height: heights.reduce(0, +) + (grid.rows - 1) * bezel)
    }

    /// Each screen's placement: its tile, unscaled, turned onto a buffer of `buffers[i]`
    /// by `rotations[i]` (the screen's software rotation; `.none` when a plane turns it).
    public func placements(buffers: [PixelSize], rotations: [Rotation]) -> [HeadPlacement] {
        zip(tiles, zip(buffers, rotations)).map { tile, screen in
            HeadPlacement(canvasRect: tile, layout: GravityLayout(source: tile.size, rotation: screen.1,
                                                                  target: screen.0, gravity: .stretch))
        }
    }
}

/// A mirror: every screen shows the whole canvas, fitted to it with black bars where its shape
/// differs. The canvas is the first screen's upright size (the engine draws once, for it).
public enum MirrorLayout {
    public static func placements(canvas: PixelSize, buffers: [PixelSize], rotations: [Rotation]) -> [HeadPlacement] {
        zip(buffers, rotations).map { buffer, rotation in
            HeadPlacement(canvasRect: PixelRect(size: canvas),
                          layout: GravityLayout(source: canvas, rotation: rotation, target: buffer, gravity: .fit))
        }
    }
}
