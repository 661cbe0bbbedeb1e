/**
 * A box that says something went wrong or needs care: a colored edge and tint from its tone,
 * never color alone (the words say it too). `role` says how it is announced: alert (failed, act
 * now), status (a state worth knowing), note (advice); none inside a container that announces.
 */
import type { HTMLAttributes, ReactNode } from 'react';
import type { Tone } from './tone';
import './callout.css';

export function Callout({
  tone,
  role,
  className = '',
  children,
  ...rest
}: { tone: Tone; role?: 'alert' | 'status' | 'note'; className?: string; children: ReactNode } & Omit<
  HTMLAttributes<HTMLDivElement>,
  'role' | 'className' | 'children'
>) {
  return (
    <div className={`callout tone-${tone}${className ? ` ${className}` : ''}`} role={role} {...rest}>
      {children}
    </div>
  );
}
